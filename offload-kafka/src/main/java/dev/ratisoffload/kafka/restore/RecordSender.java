package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.RecordHeader;
import dev.ratisoffload.kafka.format.TimestampKind;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends records exactly as backed up (key, value, headers, timestamp) through one idempotent producer,
 * and checks every delivery report against the offset the record was sent for: a record stored
 * anywhere else means another writer on the partition, or a record lost or written twice.
 *
 * <p>Sending is asynchronous; the first failure of any delivery is kept, and the next {@link #send}
 * or {@link #flush} throws it. Safe for one sending thread per partition.
 */
final class RecordSender implements AutoCloseable {

  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;
  private final String bootstrap;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicReference<KafkaOffloadException> failure = new AtomicReference<>();

  RecordSender(ProducerSettings settings, String topic, String bootstrap) {
    this.producer = new KafkaProducer<>(settings.properties(), new ByteArraySerializer(), new ByteArraySerializer());
    this.topic = topic;
    this.bootstrap = bootstrap;
  }

  /** Sends one record for {@code expectedOffset} of the partition; throws an earlier delivery's failure. */
  void send(int partition, BackupRecord record, long expectedOffset) {
    throwIfFailed();
    RecordHeaders headers = new RecordHeaders();
    for (RecordHeader h : record.headers()) {
      headers.add(h.key(), h.value());
    }
    Long timestamp = record.timestampKind() == TimestampKind.NONE ? null : record.timestamp();
    ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(topic, partition, timestamp, record.key(),
        record.value(), headers);
    sent.incrementAndGet();
    try {
      producer.send(out, (metadata, e) -> {
        if (e != null) {
          fail(delivery(partition, expectedOffset, e));
        } else if (metadata.offset() != expectedOffset) {
          fail(new KafkaOffloadException(Kind.REFUSED, "target: sent for offset " + expectedOffset
              + ", the broker stored it at " + topic + "/" + partition + " offset " + metadata.offset()
              + ": another writer on the partition, or a record lost or written twice"));
        }
      });
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      fail(unreachable("sending to " + topic + "/" + partition, e));
      throwIfFailed();
    } catch (RuntimeException e) {
      fail(delivery(partition, expectedOffset, e));
      throwIfFailed();
    }
  }

  /** Waits until every record sent was acknowledged or failed; throws the first failure. */
  void flush() {
    try {
      producer.flush();
    } catch (org.apache.kafka.common.errors.InterruptException e) {
      Thread.currentThread().interrupt();
      fail(new KafkaOffloadException(Kind.UNAVAILABLE, "interrupted while waiting for the broker's"
          + " acknowledgements", e));
    }
    throwIfFailed();
  }

  /** Records handed to the producer. */
  long sent() {
    return sent.get();
  }

  void throwIfFailed() {
    KafkaOffloadException e = failure.get();
    if (e != null) {
      throw e;
    }
  }

  private void fail(KafkaOffloadException e) {
    failure.compareAndSet(null, e);
  }

  private KafkaOffloadException delivery(int partition, long expectedOffset, Exception e) {
    String where = topic + "/" + partition + " (the record for offset " + expectedOffset + ")";
    if (e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException) {
      return new KafkaOffloadException(Kind.REFUSED, "target: " + where + " is larger than the topic accepts ("
          + e.getMessage() + "): raise the topic's max.message.bytes", e);
    }
    if (e instanceof InvalidTimestampException) {
      return new KafkaOffloadException(Kind.REFUSED, "target: the broker refused the timestamp of " + where + " ("
          + e.getMessage() + "): raise the topic's message.timestamp.before.max.ms and"
          + " message.timestamp.after.max.ms", e);
    }
    if (e instanceof AuthorizationException || e instanceof AuthenticationException) {
      return new KafkaOffloadException(Kind.UNAVAILABLE, "the cluster at " + bootstrap + " refused to store "
          + where + ": " + e.getMessage() + " (the client needs Write on the topic and IdempotentWrite)", e);
    }
    if (e instanceof RetriableException || e instanceof org.apache.kafka.common.errors.TimeoutException) {
      return unreachable("storing " + where, e);
    }
    return new KafkaOffloadException(Kind.UNAVAILABLE, "the broker failed to store " + where + ": " + e, e);
  }

  private KafkaOffloadException unreachable(String what, Exception e) {
    return new KafkaOffloadException(Kind.UNAVAILABLE, "the Kafka cluster at " + bootstrap
        + " did not acknowledge in time (" + what + "): " + e.getMessage(), e);
  }

  /** Closes the producer, waiting at most {@code timeout} for records in flight. */
  void close(Duration timeout) {
    try {
      producer.close(timeout);
    } catch (RuntimeException e) {
      fail(new KafkaOffloadException(Kind.UNAVAILABLE, "closing the producer: " + e, e));
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }
}
