package dev.ratisoffload.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Test records of every shape a Kafka record can take. */
public final class RecordShapes {

  private RecordShapes() {}

  /** Every shape a record can take, on every partition: null vs empty, binary, large, headers. */
  public static List<ProducerRecord<byte[], byte[]>> of(String topic, int partitions, Random random) {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    long base = System.currentTimeMillis() - 3_600_000;
    for (int p = 0; p < partitions; p++) {
      for (int i = 0; i < 40; i++) {
        byte[] key = switch (i % 4) {
          case 0 -> null;
          case 1 -> new byte[0];
          case 2 -> ("key-" + i).getBytes(StandardCharsets.UTF_8);
          default -> randomBytes(random, 1 + random.nextInt(40));
        };
        byte[] value = switch (i % 5) {
          case 0 -> null;
          case 1 -> new byte[0];
          case 2 -> randomBytes(random, 1 + random.nextInt(3000));
          case 3 -> i == 13 ? randomBytes(random, 300_000) : new byte[] {0, -1, 0, 127, -128};
          default -> ("value " + i + " ✓").getBytes(StandardCharsets.UTF_8);
        };
        RecordHeaders headers = new RecordHeaders();
        if (i % 3 != 0) {
          headers.add("trace", "a".getBytes(StandardCharsets.UTF_8));
          headers.add("trace", "b".getBytes(StandardCharsets.UTF_8));
          headers.add("none", null);
          headers.add("empty", new byte[0]);
          headers.add("trace", "a".getBytes(StandardCharsets.UTF_8));
          headers.add("bin", randomBytes(random, 8));
        }
        // Create-time timestamps out of order, some old; the log-append topic replaces them.
        long timestamp = base - (i % 7) * 86_400_000L + i;
        records.add(new ProducerRecord<>(topic, p, timestamp, key, value, headers));
      }
    }
    return records;
  }

  private static byte[] randomBytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
