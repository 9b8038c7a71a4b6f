package dev.ratisoffload.kafka.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.RecordHeader;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The sender keeps a bounded window of records in flight: a send waits while the records sent and not
 * yet acknowledged fill it, and goes on as acknowledgements come, or fails when a delivery fails.
 */
class RecordSenderTest {

  private static final int VALUE_BYTES = 1000;
  private static final int RECORD_BYTES = VALUE_BYTES + RecordSender.RECORD_OVERHEAD_BYTES;
  /** Room for three records, not four. */
  private static final int WINDOW = 3 * RECORD_BYTES + RECORD_BYTES / 2;

  private final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());

  @Test
  void aSendWaitsWhileTheWindowIsFullAndGoesOnWhenARecordIsAcknowledged() throws Exception {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      for (long offset = 0; offset < 3; offset++) {
        sender.send(0, record(offset), offset);
      }
      CompletableFuture<Void> fourth = CompletableFuture.runAsync(() -> sender.send(0, record(3), 3));
      Await.until("the fourth send to wait for room", Duration.ofSeconds(10), () -> sender.sent() == 3
          && !fourth.isDone() && producer.history().size() == 3);
      assertTrue(producer.completeNext());
      fourth.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(4, producer.history().size());
      while (producer.completeNext()) {
        // the rest acknowledged at the offsets they were sent for
      }
      sender.flush();
    }
  }

  @Test
  void aFailedDeliveryEndsTheWaitWithItsError() {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      for (long offset = 0; offset < 3; offset++) {
        sender.send(0, record(offset), offset);
      }
      CompletableFuture<Void> fourth = CompletableFuture.runAsync(() -> sender.send(0, record(3), 3));
      Await.until("the fourth send to wait for room", Duration.ofSeconds(10), () -> sender.sent() == 3);
      assertTrue(producer.errorNext(new NotEnoughReplicasException("2 of 3 replicas in sync")));
      Throwable thrown = assertThrows(java.util.concurrent.ExecutionException.class,
          () -> fourth.get(10, java.util.concurrent.TimeUnit.SECONDS)).getCause();
      assertTrue(thrown instanceof KafkaOffloadException k && k.kind() == KafkaOffloadException.Kind.UNAVAILABLE
          && thrown.getMessage().contains("t/0 (the record for offset 0)"), thrown::toString);
    }
  }

  @Test
  void aRefusedWriteIsARefusalNotAnOutage() {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      sender.send(0, record(0), 0);
      assertTrue(producer.errorNext(new TopicAuthorizationException("no Write on t")));
      KafkaOffloadException e = assertThrows(KafkaOffloadException.class, sender::flush);
      assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind(), e::getMessage);
      assertTrue(e.getMessage().contains("IdempotentWrite"), e::getMessage);
    }
  }

  /**
   * A follower's recovery after a transient failure: the same producer goes on, and the high
   * watermarks are read again only once nothing it sent is in flight, so no batch of it lands after them.
   */
  @Test
  void settlingWaitsForEveryRecordInFlightAndKeepsTheProducer() throws Exception {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      sender.send(0, record(0), 0);
      sender.send(0, record(1), 1);
      CompletableFuture<Boolean> settled = CompletableFuture.supplyAsync(() -> sender.settle(() -> false));
      assertTrue(producer.completeNext());
      assertFalse(settled.isDone(), "one record still in flight");
      assertTrue(producer.completeNext());
      assertTrue(settled.get(10, java.util.concurrent.TimeUnit.SECONDS));
      sender.send(0, record(2), 2);
      assertEquals(3, producer.history().size(), "the same producer sends on");
      assertFalse(producer.closed());
      assertTrue(producer.completeNext());
    }
  }

  @Test
  void settlingForgetsASendTheProducerNeverTook() {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      producer.sendException = new org.apache.kafka.common.errors.TimeoutException("no metadata in 5000 ms");
      KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> sender.send(0, record(0), 0));
      assertEquals(KafkaOffloadException.Kind.UNAVAILABLE, e.kind());
      producer.sendException = null;
      assertTrue(sender.settle(() -> false));
      sender.send(0, record(0), 0);
      assertTrue(producer.completeNext());
      sender.flush();
    }
  }

  /** The producer reports a missing topic's metadata through the callback, during send(): not in flight. */
  @Test
  void settlingForgetsASendTheProducerRefusedThroughItsCallback() {
    MockProducer<byte[], byte[]> noMetadataFirst = new MockProducer<>(false, null, new ByteArraySerializer(),
        new ByteArraySerializer()) {
      private boolean refused;

      @Override
      public synchronized java.util.concurrent.Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> r,
          Callback callback) {
        if (!refused) {
          refused = true;
          var e = new org.apache.kafka.common.errors.TimeoutException("Topic t not present in metadata after 2000 ms.");
          callback.onCompletion(null, e);
          return CompletableFuture.failedFuture(e);
        }
        return super.send(r, callback);
      }
    };
    try (RecordSender sender = new RecordSender(noMetadataFirst, WINDOW, "t", "127.0.0.1:9092")) {
      KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> sender.send(0, record(0), 0));
      assertEquals(KafkaOffloadException.Kind.UNAVAILABLE, e.kind());
      assertTrue(sender.settle(() -> false), "nothing in flight: the follower resumes with the same producer");
      sender.send(0, record(0), 0);
      assertTrue(noMetadataFirst.completeNext());
      sender.flush();
    }
  }

  @Test
  void aFailedDeliveryIsNeverForgottenAndEndsTheFollower() {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      sender.send(0, record(0), 0);
      assertTrue(producer.errorNext(new NotEnoughReplicasException("1 of 3 replicas in sync")));
      KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> sender.settle(() -> false));
      assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind(), "not retried: the record may still land");
      assertTrue(e.getMessage().contains("may still be stored"), e::getMessage);
    }
  }

  @Test
  void aWaitForTheBrokerIsToldAfterEachInterval() throws Exception {
    List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092", Duration.ofMillis(200),
        told::add)) {
      sender.send(0, record(0), 0);
      CompletableFuture<Boolean> settled = CompletableFuture.supplyAsync(() -> sender.settle(() -> false));
      Await.until("two stalls told", Duration.ofSeconds(10), () -> told.size() >= 2);
      assertTrue(told.get(0).startsWith("waited 0 s for the Kafka cluster at 127.0.0.1:9092 to acknowledge the"
          + " records in flight to t;"), told::toString);
      assertTrue(producer.completeNext());
      assertTrue(settled.get(10, java.util.concurrent.TimeUnit.SECONDS));
    }
  }

  @Test
  void settlingEndsWhenStopped() {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      sender.send(0, record(0), 0);
      assertFalse(sender.settle(() -> true), "a stop does not wait for the broker");
    }
  }

  @Test
  void aFollowersProducerNeverGivesUpABatch() {
    Map<String, Object> p = new ProducerSettings("127.0.0.1:9092", "c", Duration.ofSeconds(5), 1 << 20, "zstd", Map.of(
        "delivery.timeout.ms", "1000")).followerProperties();
    assertEquals(Integer.MAX_VALUE, p.get("delivery.timeout.ms"));
    assertEquals(Integer.MAX_VALUE, p.get("retries"));
    assertEquals(true, p.get("enable.idempotence"));
  }

  @Test
  void aRecordLargerThanTheWindowTakesAllOfIt() throws Exception {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      BackupRecord large = new BackupRecord(0, 1, TimestampKind.CREATE_TIME, null, new byte[2 * WINDOW], List.of());
      sender.send(0, large, 0);
      CompletableFuture<Void> next = CompletableFuture.runAsync(() -> sender.send(0, record(1), 1));
      Await.until("the next send to wait for the large one", Duration.ofSeconds(10),
          () -> !next.isDone() && producer.history().size() == 1);
      assertTrue(producer.completeNext());
      next.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertTrue(producer.completeNext());
      sender.flush();
    }
  }

  @Test
  void headersGoAsBackedUpAndARecordWithoutHeadersGetsNone() {
    try (RecordSender sender = new RecordSender(producer, WINDOW, "t", "127.0.0.1:9092")) {
      sender.send(0, new BackupRecord(0, 5, TimestampKind.CREATE_TIME, new byte[] {1}, null,
          List.of(new RecordHeader("k", null), new RecordHeader("k", new byte[] {2}))), 0);
      sender.send(0, record(1), 1);
      var first = producer.history().get(0);
      assertEquals(2, first.headers().toArray().length);
      assertNull(first.headers().toArray()[0].value());
      assertEquals(2, first.headers().lastHeader("k").value()[0]);
      assertNull(first.value());
      assertEquals(5L, first.timestamp());
      assertEquals(0, producer.history().get(1).headers().toArray().length);
      while (producer.completeNext()) {
        // acknowledged
      }
      sender.flush();
    }
  }

  private static final AtomicLong TIMESTAMPS = new AtomicLong(1_700_000_000_000L);

  private static BackupRecord record(long offset) {
    return new BackupRecord(offset, TIMESTAMPS.incrementAndGet(), TimestampKind.CREATE_TIME, null,
        new byte[VALUE_BYTES], List.of());
  }
}
