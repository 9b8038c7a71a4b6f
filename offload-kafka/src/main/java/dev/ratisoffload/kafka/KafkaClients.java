package dev.ratisoffload.kafka;

import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.RecordHeader;
import dev.ratisoffload.kafka.format.TimestampKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What backup and restore share in talking to a Kafka cluster: client settings, admin calls, records. */
public final class KafkaClients {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaClients.class);

  private KafkaClients() {}

  /** Admin client properties: the bootstrap servers, timeouts, and the user's admin-relevant properties. */
  public static Map<String, Object> adminProperties(String bootstrap, String clientId, Duration timeout,
      Map<String, String> clientProperties) {
    Map<String, Object> p = new HashMap<>();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
    clientProperties.forEach((k, v) -> {
      if (AdminClientConfig.configNames().contains(k)) {
        p.put(k, v);
      }
    });
    return p;
  }

  /**
   * Waits for an admin call, turning its failure into a {@link KafkaOffloadException} that names the
   * cluster, the call and the topic.
   *
   * @param what the call, as a verb phrase ("describe topic")
   */
  public static <T> T await(KafkaFuture<T> future, Duration timeout, String bootstrap, String what, String topic) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaOffloadException(Kind.UNAVAILABLE, "interrupted while asking " + bootstrap + " to " + what, e);
    } catch (TimeoutException e) {
      throw unreachable(bootstrap, timeout, what + " " + topic, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UnknownTopicOrPartitionException) {
        throw new KafkaOffloadException(Kind.INVALID, "topic " + topic + " does not exist on the cluster at "
            + bootstrap + ": check the name (nothing was written)", cause);
      }
      throw failure(bootstrap, timeout, what + " " + topic, cause);
    }
  }

  /**
   * A failure of a call to the cluster, of the kind Kafka says it is: only what Kafka marks retriable
   * ({@link RetriableException}, timeouts included) is {@link Kind#UNAVAILABLE}, so a follower retries
   * it; a client setting the client itself rejects is {@link Kind#INVALID}; everything else (authorization,
   * a config or request the cluster refuses) is {@link Kind#REFUSED}, which no retry can change.
   *
   * @param what the call and its object, as a verb phrase ("create topic orders")
   */
  public static KafkaOffloadException failure(String bootstrap, Duration timeout, String what, Throwable cause) {
    if (isTransient(cause)) {
      return unreachable(bootstrap, timeout, what, cause);
    }
    if (cause instanceof ConfigException) {
      return new KafkaOffloadException(Kind.INVALID, "the client settings for " + bootstrap + " are invalid: "
          + cause.getMessage() + " (check --command-config; nothing was written)", cause);
    }
    if (cause instanceof AuthorizationException || cause instanceof AuthenticationException) {
      return new KafkaOffloadException(Kind.REFUSED, "the cluster at " + bootstrap + " refused to " + what + ": "
          + cause.getMessage() + " (check the client's credentials and ACLs, then run again)", cause);
    }
    return new KafkaOffloadException(Kind.REFUSED, "the cluster at " + bootstrap + " refused to " + what + ": "
        + cause + " (an error Kafka does not retry: correct the cause, then run again)", cause);
  }

  /** Whether Kafka marks the error as one that may pass by itself (a retry may help). */
  public static boolean isTransient(Throwable cause) {
    return cause instanceof RetriableException;
  }

  /** The cluster did not answer in time. */
  public static KafkaOffloadException unreachable(String bootstrap, Duration timeout, String what, Throwable cause) {
    return new KafkaOffloadException(Kind.UNAVAILABLE, "the Kafka cluster at " + bootstrap
        + " did not answer within " + timeout.toSeconds() + " s (" + what + "); nothing more was written:"
        + " check that it is reachable and run again", cause);
  }

  /**
   * Closes a consumer that assigned its partitions itself (no group to leave, no offset to commit)
   * without waiting: a graceful close waits for the fetch still in flight, which the broker holds for up
   * to fetch.max.wait.ms (500 ms) when the partitions have nothing more. A failure to close is logged,
   * not thrown: it would only hide what the caller is reporting.
   */
  public static void closeAtOnce(Consumer<?, ?> consumer) {
    try {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
    } catch (RuntimeException e) {
      LOG.debug("closing the consumer: {}", e.toString());
    }
  }

  /** A consumed record as a backup keeps it. */
  public static BackupRecord toBackupRecord(ConsumerRecord<byte[], byte[]> r) {
    List<RecordHeader> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(new RecordHeader(h.key(), h.value()));
    }
    return new BackupRecord(r.offset(), r.timestamp(), kind(r.timestampType()), r.key(), r.value(), headers);
  }

  private static TimestampKind kind(TimestampType type) {
    return switch (type) {
      case CREATE_TIME -> TimestampKind.CREATE_TIME;
      case LOG_APPEND_TIME -> TimestampKind.LOG_APPEND_TIME;
      default -> TimestampKind.NONE;
    };
  }
}
