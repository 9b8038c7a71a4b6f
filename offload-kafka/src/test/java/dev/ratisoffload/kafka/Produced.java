package dev.ratisoffload.kafka;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.RecordHeader;
import dev.ratisoffload.kafka.format.TimestampKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Records produced in a test, with where the broker stored them: the expected content of a backup,
 * independent of any consumer.
 */
public final class Produced {

  private final Map<Integer, List<BackupRecord>> byPartition = new TreeMap<>();

  public static KafkaProducer<byte[], byte[]> producer(String bootstrap, Map<String, Object> extra) {
    Map<String, Object> config = new java.util.HashMap<>(Map.of("bootstrap.servers", bootstrap, "acks", "all",
        "linger.ms", 5, "enable.idempotence", true,
        // One request in flight: a batch retried after NOT_LEADER_OR_FOLLOWER cannot overtake the next.
        "max.in.flight.requests.per.connection", 1));
    config.putAll(extra);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Sends the records and waits until each is stored; {@code kind} is what the topic's timestamps mean. */
  public Produced send(KafkaProducer<byte[], byte[]> producer, List<ProducerRecord<byte[], byte[]>> records,
      TimestampKind kind) throws Exception {
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : records) {
      acks.add(producer.send(r));
    }
    producer.flush();
    for (int i = 0; i < records.size(); i++) {
      add(records.get(i), acks.get(i).get(), kind);
    }
    return this;
  }

  /** Records a record the broker stored (for transactional sends whose acks the caller awaited). */
  public void add(ProducerRecord<byte[], byte[]> r, RecordMetadata m, TimestampKind kind) {
    List<RecordHeader> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(new RecordHeader(h.key(), h.value()));
    }
    // For log-append-time topics the ack carries the broker's timestamp; for create-time the producer's.
    byPartition.computeIfAbsent(m.partition(), p -> new ArrayList<>())
        .add(new BackupRecord(m.offset(), m.timestamp(), kind, r.key(), r.value(), headers));
  }

  public List<BackupRecord> records(int partition) {
    return byPartition.getOrDefault(partition, List.of()).stream()
        .sorted(java.util.Comparator.comparingLong(BackupRecord::offset)).toList();
  }

  public int count() {
    return byPartition.values().stream().mapToInt(List::size).sum();
  }
}
