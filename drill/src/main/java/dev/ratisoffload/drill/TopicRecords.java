package dev.ratisoffload.drill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The drill's Kafka records: writing a topic whose records exercise every part of a record (keys,
 * values, headers, explicit timestamps, null keys, null values), reading a whole topic back, and
 * comparing two topics record by record.
 */
final class TopicRecords {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** One stored record, as a consumer sees it. */
  record Stored(long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {}

  private TopicRecords() {}

  /**
   * Produces {@code perPartition} records to every partition: record i has key {@code k-i} (null every
   * 7th), a value of varying length (null every 11th), zero to two headers (one with a null value every
   * 5th) and a create timestamp a day in the past, one second apart.
   */
  static long produce(String bootstrap, String topic, int partitions, int perPartition) throws IOException {
    Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.LINGER_MS_CONFIG, 5);
    long start = Instant.now().minus(Duration.ofDays(1)).toEpochMilli();
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < perPartition; i++) {
        for (int p = 0; p < partitions; p++) {
          int n = i * partitions + p;
          byte[] key = n % 7 == 3 ? null : bytes("k-" + n);
          byte[] value = n % 11 == 5 ? null : bytes("value " + n + " " + "x".repeat(n % 97));
          List<Header> headers = new ArrayList<>();
          if (n % 3 != 0) {
            headers.add(new RecordHeader("source", bytes("drill")));
          }
          if (n % 3 == 2) {
            headers.add(new RecordHeader("trace", n % 5 == 0 ? null : bytes(Integer.toHexString(n))));
          }
          sent.add(producer.send(new ProducerRecord<>(topic, p, start + n * 1000L, key, value, headers)));
        }
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("producing to " + topic + " on " + bootstrap + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while producing", e);
    }
    return sent.size();
  }

  /** Every record of every partition of the topic, from its start to its end when this is called. */
  static SortedMap<Integer, List<Stored>> readAll(String bootstrap, String topic) throws IOException {
    Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000,
        // partitionsFor of a missing topic must not make a broker with auto.create.topics.enable create it
        ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    SortedMap<Integer, List<Stored>> records = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, TIMEOUT).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      if (partitions.isEmpty()) {
        throw new IOException("topic " + topic + " does not exist on " + bootstrap);
      }
      partitions.forEach(tp -> records.put(tp.partition(), new ArrayList<>()));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, TIMEOUT));
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey(), TIMEOUT) < e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IOException("reading " + topic + " did not reach its end offsets " + end + " within "
              + TIMEOUT.toSeconds() + " s");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.offset() < end.get(new TopicPartition(topic, r.partition()))) {
            records.get(r.partition()).add(new Stored(r.offset(), r.timestamp(), r.key(), r.value(),
                Arrays.asList(r.headers().toArray())));
          }
        }
      }
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new IOException("reading " + topic + " on " + bootstrap + " failed: " + e.getMessage(), e);
    }
    return records;
  }

  /**
   * The differences between two topics' records, each naming the partition, the offset and what
   * differs; empty when every partition holds the same records at the same offsets.
   */
  static List<String> differences(SortedMap<Integer, List<Stored>> expected, SortedMap<Integer, List<Stored>> actual) {
    List<String> problems = new ArrayList<>();
    if (!expected.keySet().equals(actual.keySet())) {
      problems.add("partitions " + actual.keySet() + ", expected " + expected.keySet());
    }
    for (Map.Entry<Integer, List<Stored>> e : expected.entrySet()) {
      List<Stored> want = e.getValue();
      List<Stored> got = actual.getOrDefault(e.getKey(), List.of());
      if (want.size() != got.size()) {
        problems.add("partition " + e.getKey() + ": " + got.size() + " records, expected " + want.size());
      }
      for (int i = 0; i < Math.min(want.size(), got.size()); i++) {
        String difference = difference(want.get(i), got.get(i));
        if (difference != null) {
          problems.add("partition " + e.getKey() + " offset " + want.get(i).offset() + ": " + difference);
        }
      }
    }
    return problems;
  }

  /** Where a record differs from the expected one (offset, timestamp, key, value, headers); null if nowhere. */
  static String difference(Stored want, Stored got) {
    if (want.offset() != got.offset()) {
      return "restored at offset " + got.offset();
    }
    if (want.timestamp() != got.timestamp()) {
      return "timestamp " + got.timestamp() + ", expected " + want.timestamp();
    }
    if (!Arrays.equals(want.key(), got.key())) {
      return "key " + text(got.key()) + ", expected " + text(want.key());
    }
    if (!Arrays.equals(want.value(), got.value())) {
      return "value " + text(got.value()) + ", expected " + text(want.value());
    }
    if (!headerText(want.headers()).equals(headerText(got.headers()))) {
      return "headers " + headerText(got.headers()) + ", expected " + headerText(want.headers());
    }
    return null;
  }

  private static List<String> headerText(List<Header> headers) {
    return headers.stream().map(h -> h.key() + "=" + text(h.value())).toList();
  }

  private static String text(byte[] bytes) {
    return bytes == null ? "null" : "'" + new String(bytes, StandardCharsets.UTF_8) + "'";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A consumer of {@code group} reads the first {@code count} records of every partition and commits
   * after them, as an application that is part-way through the topic; returns the committed offsets.
   */
  static SortedMap<Integer, Long> readAndCommit(String bootstrap, String topic, String group, int count)
      throws IOException {
    SortedMap<Integer, Long> committed = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = groupConsumer(bootstrap, group, "earliest")) {
      consumer.subscribe(List.of(topic));
      Map<Integer, Integer> read = new HashMap<>();
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      int partitions = consumer.partitionsFor(topic, TIMEOUT).size();
      while (committed.size() < partitions) {
        if (System.nanoTime() > deadline) {
          throw new IOException("consumer group " + group + " read " + read + " records of " + topic + " within "
              + TIMEOUT.toSeconds() + " s, not " + count + " of each partition");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (read.merge(r.partition(), 1, Integer::sum) == count) {
            committed.put(r.partition(), r.offset() + 1);
          }
        }
      }
      Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets = new HashMap<>();
      committed.forEach((p, o) -> offsets.put(new TopicPartition(topic, p),
          new org.apache.kafka.clients.consumer.OffsetAndMetadata(o)));
      consumer.commitSync(offsets, TIMEOUT);
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new IOException("consumer group " + group + " reading " + topic + " failed: " + e.getMessage(), e);
    }
    return committed;
  }

  /**
   * The first record a new consumer of {@code group} gets from each partition: where the group resumes.
   * Without a committed offset the consumer fails at once (no reset), so a missing commit is reported.
   */
  static SortedMap<Integer, Stored> firstPolled(String bootstrap, String topic, String group) throws IOException {
    SortedMap<Integer, Stored> first = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = groupConsumer(bootstrap, group, "none")) {
      consumer.subscribe(List.of(topic));
      int partitions = consumer.partitionsFor(topic, TIMEOUT).size();
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (first.size() < partitions) {
        if (System.nanoTime() > deadline) {
          throw new IOException("consumer group " + group + " got records of partitions " + first.keySet() + " of "
              + topic + " within " + TIMEOUT.toSeconds() + " s, not of all " + partitions);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          first.putIfAbsent(r.partition(), new Stored(r.offset(), r.timestamp(), r.key(), r.value(),
              Arrays.asList(r.headers().toArray())));
        }
      }
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new IOException("consumer group " + group + " reading " + topic + " failed: " + e.getMessage(), e);
    }
    return first;
  }

  private static KafkaConsumer<byte[], byte[]> groupConsumer(String bootstrap, String group, String reset) {
    return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Deletes a consumer group the drill made on brokers it did not start; a group already gone is fine. */
  static void deleteGroup(String bootstrap, String group) throws IOException {
    try (Admin admin = admin(bootstrap)) {
      admin.deleteConsumerGroups(List.of(group)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException)) {
        throw new IOException("deleting consumer group " + group + " on " + bootstrap + " failed: " + e.getMessage(), e);
      }
    } catch (TimeoutException e) {
      throw new IOException("deleting consumer group " + group + " on " + bootstrap + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while deleting consumer group " + group, e);
    }
  }

  /** An admin client for the brokers; the caller closes it. */
  static Admin admin(String bootstrap) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  /** Creates a topic with one replica per partition (or the broker's default replication). */
  static void create(String bootstrap, String topic, int partitions) throws IOException {
    try (Admin admin = admin(bootstrap)) {
      admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
          .all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("creating " + topic + " on " + bootstrap + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while creating " + topic, e);
    }
  }

  /** Deletes a topic, if it exists, and waits until the brokers no longer list it. */
  static void deleteIfExists(String bootstrap, String topic) throws IOException {
    try (Admin admin = admin(bootstrap)) {
      if (!admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).contains(topic)) {
        return;
      }
      admin.deleteTopics(List.of(topic)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).contains(topic)) {
        if (System.nanoTime() > deadline) {
          throw new IOException("topic " + topic + " still listed " + TIMEOUT.toSeconds() + " s after deletion");
        }
        Thread.sleep(100);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("deleting " + topic + " on " + bootstrap + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while deleting " + topic, e);
    }
  }
}
