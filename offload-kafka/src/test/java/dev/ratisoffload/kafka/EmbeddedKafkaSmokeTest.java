package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.testkit.EmbeddedKafka;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaSmokeTest {
  @Test
  void startsProducesAndRestarts() throws Exception {
    long t0 = System.nanoTime();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      System.out.println("started in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
      kafka.createTopics(new NewTopic("t", 2, (short) 1));
      try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()),
          new StringSerializer(), new StringSerializer())) {
        assertEquals(0, p.send(new ProducerRecord<>("t", 0, "k", "v")).get().offset());
      }
      kafka.restart();
      try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()),
          new StringSerializer(), new StringSerializer())) {
        assertEquals(1, p.send(new ProducerRecord<>("t", 0, "k", "v")).get().offset());
      }
    }
  }
}
