package dev.ratisoffload.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.tools.ConsumerPerformance;
import org.apache.kafka.tools.ProducerPerformance;

/**
 * The Kafka benchmarks' baseline, in its own JVM: Kafka's own performance tools, run through their
 * {@code main} as {@code kafka-producer-perf-test.sh} and {@code kafka-consumer-perf-test.sh} run them.
 * What they print goes to this JVM's log; the reply carries the wall time of the whole call (measured
 * the same way as our side's), this process's CPU time, and the tool's own records-per-second figure.
 *
 * <p>Commands: {@code produce <bootstrap> <topic> <records> <recordBytes>} (with the restore's producer
 * settings) and {@code consume <bootstrap> <topic> <records>}.
 */
public final class KafkaToolsBaseline {

  /**
   * The restore's producer settings (offload-kafka's {@code ProducerSettings}): idempotent, acks=all,
   * linger 5 ms, 256 KiB batches, 5 requests in flight, 64 MiB of buffer, no compression.
   */
  static final List<String> PRODUCER_PROPS = List.of("enable.idempotence=true", "acks=all", "linger.ms=5",
      "batch.size=262144", "max.in.flight.requests.per.connection=5", "buffer.memory=67108864",
      "compression.type=none");

  public static void main(String[] args) throws Exception {
    ChildJvm.serve(words -> {
      Map<String, Object> reply = new LinkedHashMap<>();
      switch (words[0]) {
        case "produce" -> {
          List<String> tool = new ArrayList<>(List.of("--bootstrap-server", words[1], "--topic", words[2],
              "--num-records", words[3], "--record-size", words[4], "--throughput", "-1", "--command-property"));
          tool.addAll(PRODUCER_PROPS);
          String printed = run(reply, () -> ProducerPerformance.main(tool.toArray(String[]::new)));
          String[] summary = producerSummary(printed);
          reply.put("records", Long.parseLong(summary[0]));
          reply.put("toolRate", Double.parseDouble(summary[1]));
        }
        case "consume" -> {
          String[] tool = {"--bootstrap-server", words[1], "--topic", words[2], "--num-records", words[3],
              "--timeout", "60000"};
          String printed = run(reply, () -> ConsumerPerformance.main(tool));
          String[] result = consumerResult(printed);
          reply.put("records", Long.parseLong(result[4].trim()));
          reply.put("toolRate", Double.parseDouble(result[5].trim()));
        }
        default -> throw new IllegalArgumentException("unknown command " + words[0]);
      }
      return reply;
    });
    System.exit(0);
  }

  private interface Tool {
    void run() throws Exception;
  }

  /** Runs a tool, timing it; returns what it printed (also copied to the log). */
  private static String run(Map<String, Object> reply, Tool tool) throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream log = System.out;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    long cpuBefore = PublishPeer.processCpuNanos();
    long started = System.nanoTime();
    try {
      tool.run();
    } finally {
      reply.put("seconds", (System.nanoTime() - started) / 1e9);
      reply.put("cpuSeconds", (PublishPeer.processCpuNanos() - cpuBefore) / 1e9);
      System.setOut(log);
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    log.print(text);
    log.flush();
    return text;
  }

  /**
   * The records sent and the tool's records per second, from its last line: "N records sent, R
   * records/sec (M MB/sec), ...".
   */
  static String[] producerSummary(String printed) {
    String last = printed.lines().filter(l -> l.contains(" records sent, ")).reduce((a, b) -> b)
        .orElseThrow(() -> new IllegalStateException("the producer tool printed no summary: " + printed));
    String[] words = last.trim().split("[ ,]+");
    return new String[] {words[0], words[3]};
  }

  /**
   * The consumer tool's result line (CSV after its header: start.time, end.time, data.consumed.in.MB,
   * MB.sec, data.consumed.in.nMsg, nMsg.sec, ...), split into its columns.
   */
  static String[] consumerResult(String printed) {
    String last = printed.lines().filter(l -> l.split(",").length >= 6 && !l.startsWith("start.time"))
        .reduce((a, b) -> b)
        .orElseThrow(() -> new IllegalStateException("the consumer tool printed no result: " + printed));
    return last.split(",");
  }
}
