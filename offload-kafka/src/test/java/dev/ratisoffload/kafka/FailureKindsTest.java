package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.store.StoreUnavailableException;
import java.time.Duration;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

/**
 * A follower retries only what may pass by itself: the errors Kafka marks retriable (timeouts included)
 * and an unreachable store. Authorization, a config or request the cluster refuses, damaged data end it
 * with their own kind (exit 5, 2, 3), never as "unavailable" (exit 4, retried for ever).
 */
class FailureKindsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private static KafkaOffloadException failure(Throwable cause) {
    return KafkaClients.failure("127.0.0.1:9092", TIMEOUT, "create topic orders", cause);
  }

  @Test
  void errorsKafkaDoesNotRetryAreRefusalsAndEndAFollower() {
    for (Throwable permanent : new Throwable[] {new TopicAuthorizationException("no Create on orders"),
        new SaslAuthenticationException("bad password"), new InvalidConfigurationException("cleanup.policy=bogus"),
        new PolicyViolationException("no such topics here"), new UnsupportedVersionException("too old")}) {
      KafkaOffloadException e = failure(permanent);
      assertEquals(Kind.REFUSED, e.kind(), permanent::toString);
      assertTrue(e.getMessage().startsWith("the cluster at 127.0.0.1:9092 refused to create topic orders: "),
          e::getMessage);
      assertFalse(FollowerPacing.isTransient(e), permanent::toString);
    }
    assertEquals(Kind.INVALID, failure(new ConfigException("sasl.mechanism", "NOPE", "unknown")).kind());
  }

  @Test
  void errorsKafkaRetriesAreTransient() {
    for (RuntimeException retriable : new RuntimeException[] {new TimeoutException("no answer"),
        new NotLeaderOrFollowerException("moving")}) {
      KafkaOffloadException e = failure(retriable);
      assertEquals(Kind.UNAVAILABLE, e.kind(), retriable::toString);
      assertTrue(FollowerPacing.isTransient(e));
      assertTrue(FollowerPacing.isTransient(retriable), "a raw retriable error too");
    }
  }

  @Test
  void anAdminCallsFailureKeepsItsKind() {
    KafkaFutureImpl<Void> refused = new KafkaFutureImpl<>();
    refused.completeExceptionally(new InvalidConfigurationException("Invalid value bogus for cleanup.policy"));
    KafkaOffloadException e = assertThrows(KafkaOffloadException.class,
        () -> KafkaClients.await(refused, TIMEOUT, "127.0.0.1:9092", "create topic", "orders"));
    assertEquals(Kind.REFUSED, e.kind());
    assertTrue(e.getMessage().contains("Invalid value bogus for cleanup.policy"), e::getMessage);
  }

  @Test
  void onlyAStoreThatMayAnswerLaterIsTransient() {
    assertTrue(FollowerPacing.isTransient(new StoreUnavailableException("s3 is down", null)));
    assertFalse(FollowerPacing.isTransient(new StoreAccessException("access denied", null)));
    assertFalse(FollowerPacing.isTransient(new IntegrityException("hash mismatch")));
    assertFalse(FollowerPacing.isTransient(new KafkaOffloadException(Kind.INCONSISTENT, "a hole")));
  }
}
