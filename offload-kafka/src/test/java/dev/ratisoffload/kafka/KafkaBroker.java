package dev.ratisoffload.kafka;

import dev.ratisoffload.testkit.EmbeddedKafka;
import java.io.IOException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One embedded Kafka broker for the tests of a class, started before the first and closed after the
 * last: {@code @RegisterExtension static final KafkaBroker kafka = new KafkaBroker();}.
 */
final class KafkaBroker implements BeforeAllCallback, AfterAllCallback {

  private EmbeddedKafka kafka;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    kafka = EmbeddedKafka.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (kafka != null) {
      kafka.close();
      kafka = null;
    }
  }

  String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  Admin admin() {
    return kafka.admin();
  }

  /** Stops the broker (clients see it unreachable), keeping its data and port for {@link #restart()}. */
  void stop() {
    kafka.stop();
  }

  void restart() throws IOException {
    kafka.restart();
  }

  void createTopics(NewTopic... topics) throws IOException {
    kafka.createTopics(topics);
  }
}
