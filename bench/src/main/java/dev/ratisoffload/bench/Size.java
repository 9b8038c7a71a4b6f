package dev.ratisoffload.bench;

import java.util.List;

/**
 * How big the benchmarks are. {@code full} is what the targets are stated for; {@code small} runs the
 * same code in about a minute, so CI keeps it working (its figures say little).
 *
 * @param name small or full
 * @param files files in the snapshot
 * @param snapshotBytes the snapshot's size
 * @param reps runs of each side of each measurement: the best of a throughput measurement is kept (the
 *     machine is shared and noisy, and the first runs also measure the JIT compiler), the cost
 *     benchmark pools them
 * @param groups groups of the scale benchmark
 * @param loadRate client writes per second of the cost benchmark
 * @param kafkaRecords records of each Kafka topic backed up and restored
 * @param kafkaRecordBytes the record sizes of the Kafka benchmarks, a topic each
 */
record Size(String name, int files, long snapshotBytes, int reps, int groups, int loadRate, int kafkaRecords,
    List<Integer> kafkaRecordBytes) {

  static final List<Integer> KAFKA_RECORD_BYTES = List.of(100, 1024);

  static final long MIB = 1024 * 1024;

  static Size of(String name) {
    return switch (name) {
      case "small" -> new Size("small", 4, 32 * MIB, 1, 50, 20, 50_000, KAFKA_RECORD_BYTES);
      case "full" -> new Size("full", 8, 1024 * MIB, 5, 1000, 20, 1_000_000, KAFKA_RECORD_BYTES);
      default -> throw new IllegalArgumentException("--size must be small or full, not " + name);
    };
  }

  Size withLoadRate(int rate) {
    return new Size(name, files, snapshotBytes, reps, groups, rate, kafkaRecords, kafkaRecordBytes);
  }

  Size withReps(int runs) {
    return new Size(name, files, snapshotBytes, runs, groups, loadRate, kafkaRecords, kafkaRecordBytes);
  }

  Size withKafkaRecords(int records) {
    return new Size(name, files, snapshotBytes, reps, groups, loadRate, records, kafkaRecordBytes);
  }

  Size withKafkaRecordBytes(List<Integer> recordBytes) {
    return new Size(name, files, snapshotBytes, reps, groups, loadRate, kafkaRecords, recordBytes);
  }

  long bytesPerFile() {
    return snapshotBytes / files;
  }

  String snapshotText() {
    return snapshotBytes >= 1024 * MIB ? snapshotBytes / (1024 * MIB) + " GiB" : snapshotBytes / MIB + " MiB";
  }
}
