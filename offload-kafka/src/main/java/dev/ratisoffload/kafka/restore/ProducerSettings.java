package dev.ratisoffload.kafka.restore;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The producer a restore writes with: idempotent (a retried batch is neither duplicated nor reordered),
 * acks=all, a short linger and large batches, many records in flight, and requests large enough for the
 * largest record restored, compressed with the codec {@link RestoreCompression} chose. The user's client
 * properties (security) are applied first; the settings that keep offsets exact are not theirs to change.
 */
record ProducerSettings(String bootstrap, String clientId, Duration brokerTimeout, int maxRecordBytes,
    String compression, Map<String, String> clientProperties) {

  static final int BATCH_BYTES = 256 * 1024;
  static final int LINGER_MS = 5;
  static final long BUFFER_BYTES = 64L * 1024 * 1024;

  Map<String, Object> properties() {
    Map<String, Object> p = new HashMap<>(clientProperties);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    p.put(ProducerConfig.LINGER_MS_CONFIG, LINGER_MS);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, BATCH_BYTES);
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, BUFFER_BYTES);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Math.max(1024 * 1024, maxRecordBytes + 1024));
    p.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    int requestMs = (int) Math.min(brokerTimeout.toMillis(), 30_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, requestMs);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(brokerTimeout.toMillis(), requestMs + LINGER_MS));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, brokerTimeout.toMillis());
    return p;
  }

  /**
   * A follower's producer: as {@link #properties()}, but a batch is retried until the broker stores it
   * or refuses it for good, however long the broker is away. Idempotence makes the retries safe (the
   * broker drops a batch it already has, by the producer's id and sequence numbers), and no batch is
   * ever given up while it may still land: a delivery timeout would leave a batch of unknown fate that
   * a later write from the high watermark could duplicate.
   */
  Map<String, Object> followerProperties() {
    Map<String, Object> p = properties();
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
    p.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
    return p;
  }
}
