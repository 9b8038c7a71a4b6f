package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.KafkaClients;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.RecordHeader;
import dev.ratisoffload.kafka.format.TimestampKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends records exactly as backed up (key, value, headers, timestamp) through one idempotent producer,
 * and checks every delivery report against the offset the record was sent for: a record stored
 * anywhere else means another writer on the partition, or a record lost or written twice.
 *
 * <p>Sending is asynchronous; the first failure of any delivery is kept, and the next {@link #send}
 * or {@link #flush} throws it. A bounded window of records is in flight ({@link #windowFor}): a send
 * waits while it is full. Safe for one sending thread per partition.
 */
final class RecordSender implements AutoCloseable {

  /** The smallest window: enough for several full requests in flight. */
  static final int MIN_WINDOW_BYTES = 8 << 20;
  /** What a record counts in the window besides its key and value (its share of a batch, roughly). */
  static final int RECORD_OVERHEAD_BYTES = 70;

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final String bootstrap;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicReference<KafkaOffloadException> failure = new AtomicReference<>();
  /** The first failed delivery report: a record the producer took and failed to store. */
  private final AtomicReference<KafkaOffloadException> deliveryFailure = new AtomicReference<>();
  private final int windowBytes;
  private final Duration stallInterval;
  private final Consumer<String> stalled;
  /** Room left in the window of records sent and not yet acknowledged. */
  private final Semaphore unacknowledged;

  RecordSender(ProducerSettings settings, String topic, String bootstrap) {
    this(new KafkaProducer<>(settings.properties(), new ByteArraySerializer(), new ByteArraySerializer()),
        windowFor(settings), topic, bootstrap);
  }

  /**
   * A follower's sender, kept for the follower's life: its producer retries a batch until the broker
   * takes it or refuses it for good ({@link ProducerSettings#followerProperties()}), so a transient
   * outage never leaves a batch of unknown fate behind; see {@link #settle}.
   */
  static RecordSender forFollower(ProducerSettings settings, String topic, String bootstrap,
      Consumer<String> stalled) {
    return new RecordSender(new KafkaProducer<>(settings.followerProperties(), new ByteArraySerializer(),
        new ByteArraySerializer()), windowFor(settings), topic, bootstrap, settings.brokerTimeout(), stalled);
  }

  RecordSender(Producer<byte[], byte[]> producer, int windowBytes, String topic, String bootstrap) {
    this(producer, windowBytes, topic, bootstrap, Duration.ofSeconds(30), problem -> {});
  }

  /**
   * @param stallInterval how long a wait for acknowledgements lasts before {@code stalled} hears of it
   *     (and again after each further interval): a follower's producer retries for ever, and without
   *     this a broker outage would hold it silently
   */
  RecordSender(Producer<byte[], byte[]> producer, int windowBytes, String topic, String bootstrap,
      Duration stallInterval, Consumer<String> stalled) {
    this.stallInterval = stallInterval;
    this.stalled = stalled;
    this.producer = producer;
    this.windowBytes = windowBytes;
    this.unacknowledged = new Semaphore(windowBytes);
    this.topic = topic;
    this.bootstrap = bootstrap;
  }

  /**
   * How many bytes of records may be sent and not yet acknowledged: four of the largest record, at least
   * {@value #MIN_WINDOW_BYTES}, at most the producer's buffer. A record counts as its key and value
   * plus {@value #RECORD_OVERHEAD_BYTES}. Every record waiting for its acknowledgement keeps a few
   * objects of the producer alive; with the buffer full of small records (hundreds of thousands) each
   * young collection copied and promoted them, and a restore of small records spent a quarter of its
   * time collecting.
   */
  static int windowFor(ProducerSettings settings) {
    return (int) Math.min(ProducerSettings.BUFFER_BYTES, Math.max(MIN_WINDOW_BYTES, 4L * settings.maxRecordBytes()));
  }

  /** Sends one record for {@code expectedOffset} of the partition; throws an earlier delivery's failure. */
  void send(int partition, BackupRecord record, long expectedOffset) {
    throwIfFailed();
    Long timestamp = record.timestampKind() == TimestampKind.NONE ? null : record.timestamp();
    ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(topic, partition, timestamp, record.key(),
        record.value(), headers(record));
    int size = (int) Math.min(windowBytes, (long) RECORD_OVERHEAD_BYTES + length(record.key()) + length(record.value()));
    acquire(size);
    sent.incrementAndGet();
    // The producer reports a failure before it took the record (no metadata within max.block.ms, a
    // record too large) through the callback too, on this thread while send() runs: that record is
    // not in flight, unlike one whose delivery failed.
    Thread caller = Thread.currentThread();
    AtomicBoolean sending = new AtomicBoolean(true);
    try {
      producer.send(out, (metadata, e) -> {
        if (e != null) {
          KafkaOffloadException failed = delivery(partition, expectedOffset, e);
          if (!(sending.get() && Thread.currentThread() == caller)) {
            deliveryFailure.compareAndSet(null, failed);
          }
          fail(failed);
        } else if (metadata.offset() != expectedOffset) {
          fail(new KafkaOffloadException(Kind.REFUSED, "target: sent for offset " + expectedOffset
              + ", the broker stored it at " + topic + "/" + partition + " offset " + metadata.offset()
              + ": another writer on the partition, or a record lost or written twice"));
        }
        unacknowledged.release(size); // after the failure is kept: a send waiting for room then throws it
      });
      sending.set(false);
      throwIfFailed();
    } catch (KafkaOffloadException e) {
      throw e;
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      unacknowledged.release(size);
      fail(unreachable("sending to " + topic + "/" + partition, e));
      throwIfFailed();
    } catch (RuntimeException e) {
      unacknowledged.release(size);
      fail(delivery(partition, expectedOffset, e));
      throwIfFailed();
    }
  }

  /** The record's headers for the producer; null (the producer's own empty headers) when it has none. */
  private static List<Header> headers(BackupRecord record) {
    if (record.headers().isEmpty()) {
      return null;
    }
    List<Header> headers = new ArrayList<>(record.headers().size());
    for (RecordHeader h : record.headers()) {
      headers.add(new org.apache.kafka.common.header.internals.RecordHeader(h.key(), h.value()));
    }
    return headers;
  }

  private static int length(byte[] bytes) {
    return bytes == null ? 0 : bytes.length;
  }

  /** Waits until the window has room for the record; a delivery's failure ends the wait. */
  private void acquire(int size) {
    try {
      Wait wait = new Wait();
      while (!unacknowledged.tryAcquire(size, 100, TimeUnit.MILLISECONDS)) {
        throwIfFailed();
        wait.tick();
      }
      if (failure.get() != null) {
        unacknowledged.release(size);
        throwIfFailed();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaOffloadException(Kind.UNAVAILABLE, "interrupted while waiting for the broker's"
          + " acknowledgements", e);
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

  /**
   * Waits until every record sent was acknowledged or failed, then throws the first failure.
   *
   * @return false when {@code stop} said so first
   */
  boolean awaitAcknowledged(BooleanSupplier stop) {
    try {
      Wait wait = new Wait();
      while (!unacknowledged.tryAcquire(windowBytes, 100, TimeUnit.MILLISECONDS)) {
        if (stop.getAsBoolean()) {
          return false;
        }
        wait.tick();
      }
      unacknowledged.release(windowBytes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    throwIfFailed();
    return true;
  }

  /**
   * A follower's recovery, before it reads the target's high watermarks again (after a failure, or at
   * its start): waits until nothing this producer sent is in flight, so no batch of it can land after
   * those high watermarks, and then forgets a transient failure of a send the producer never took (its
   * record was not handed over, so it is sent again from the high watermark). A failed delivery is
   * never forgotten: the follower's producer retries a delivery until it succeeds or fails for good, so
   * it ends the follower; one that failed as transient anyway (its record may still land) does too,
   * rather than risk writing that record twice.
   *
   * @return false when {@code stop} said so first
   */
  boolean settle(BooleanSupplier stop) {
    KafkaOffloadException before = failure.get();
    if (before != null && deliveryFailure.get() == null && before.kind() == Kind.UNAVAILABLE) {
      failure.compareAndSet(before, null);
    }
    try {
      return awaitAcknowledged(stop);
    } catch (KafkaOffloadException e) {
      if (e.kind() != Kind.UNAVAILABLE) {
        throw e;
      }
      throw new KafkaOffloadException(Kind.REFUSED, e.getMessage() + "; that record may still be stored, so the"
          + " follower stops rather than send it again: run it again once the cluster is steady, and it"
          + " continues after whatever the target then holds", e);
    }
  }

  /** One wait for acknowledgements, told to {@code stalled} each time it has lasted another interval. */
  private final class Wait {
    private final long start = System.nanoTime();
    private long told;

    void tick() {
      long waited = System.nanoTime() - start;
      if (waited >= (told + 1) * stallInterval.toNanos()) {
        told++;
        stalled.accept("waited " + Duration.ofNanos(waited).toSeconds() + " s for the Kafka cluster at " + bootstrap
            + " to acknowledge the records in flight to " + topic + "; the producer keeps sending them until they are"
            + " stored, and the follower goes on then (SIGTERM stops it)");
      }
    }
  }

  /** Records handed to the producer. */
  long sent() {
    return sent.get();
  }

  void throwIfFailed() {
    KafkaOffloadException delivered = deliveryFailure.get();
    KafkaOffloadException e = delivered != null ? delivered : failure.get();
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
      return new KafkaOffloadException(Kind.REFUSED, "the cluster at " + bootstrap + " refused to store "
          + where + ": " + e.getMessage() + " (the client needs Write on the topic and IdempotentWrite)", e);
    }
    if (KafkaClients.isTransient(e)) {
      return unreachable("storing " + where, e);
    }
    return new KafkaOffloadException(Kind.REFUSED, "the broker refused to store " + where + ": " + e
        + " (an error Kafka does not retry)", e);
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
