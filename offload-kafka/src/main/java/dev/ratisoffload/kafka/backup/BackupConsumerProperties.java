package dev.ratisoffload.kafka.backup;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The consumer a backup reads with. The user's client properties (security, tuning) are honoured, except
 * the settings the backup's correctness rests on: a file that sets one of those is refused, naming the
 * key, rather than silently overridden, because the operator who wrote it expects it to take effect and
 * would not learn that it did not. The brokers come from {@code --bootstrap-server}, which wins.
 */
final class BackupConsumerProperties {

  /** The settings a backup owns, each with why a user's value is refused. */
  private static final Map<String, String> OWNED = new TreeMap<>(Map.of(
      ConsumerConfig.ISOLATION_LEVEL_CONFIG, "the chain records its isolation: choose it with --isolation",
      ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "positions come from the chain; a reset would turn records the"
          + " broker deleted before they were read into a recorded hole instead of an error",
      ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "the backup commits no offsets to any group",
      ConsumerConfig.CHECK_CRCS_CONFIG, "a corrupt batch must stop the backup, not be stored",
      ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "reading a topic must never make the broker create one"));

  private BackupConsumerProperties() {}

  /** Throws {@link IllegalArgumentException} naming the first owned setting the user's properties set. */
  static void refuseOwned(Map<String, String> clientProperties) {
    for (Map.Entry<String, String> owned : OWNED.entrySet()) {
      if (clientProperties.containsKey(owned.getKey())) {
        throw new IllegalArgumentException("--command-config sets " + owned.getKey() + "="
            + clientProperties.get(owned.getKey()) + ", which a backup does not let a client file change ("
            + owned.getValue() + "); remove it from the file. Nothing was read or written");
      }
    }
  }

  /** The consumer's properties: the user's, then the backup's own, which win. */
  static Map<String, Object> of(BackupSettings settings) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "offload-kafka-backup-" + settings.label());
    // Kafka's consumer performance tool's receive buffer, not the client's 64 KiB: fewer reads per fetch.
    p.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 2 * 1024 * 1024);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) settings.brokerTimeout().toMillis());
    p.putAll(settings.clientProperties());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // Positions come from the chain, never from a reset: a missing offset is an error, not a jump.
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, settings.isolation());
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    p.put(ConsumerConfig.CHECK_CRCS_CONFIG, true);
    return p;
  }
}
