package dev.ratisoffload.publish;

import dev.ratisoffload.format.Layout;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreUnavailableException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that delegates to a real one but can fail puts after a number of them, or hold puts until
 * released, to test what a publish leaves behind when the store fails or leadership moves mid-upload.
 * Only a generation's objects (chunks, manifests) are held, failed and counted: a publish's intent passes.
 */
public final class FaultyStore extends ForwardingObjectStore {

  private final AtomicInteger putsBeforeFailure = new AtomicInteger(Integer.MAX_VALUE);
  private volatile CountDownLatch gate;
  private final CountDownLatch blocked = new CountDownLatch(1);
  private final AtomicInteger puts = new AtomicInteger();
  private final Map<String, String> declaredSha256 = new ConcurrentHashMap<>();

  public FaultyStore(ObjectStore delegate) {
    super(delegate);
  }

  /** Lets {@code n} more puts through, then fails every put as if the store went away. */
  public void failPutsAfter(int n) {
    putsBeforeFailure.set(n);
  }

  public void heal() {
    putsBeforeFailure.set(Integer.MAX_VALUE);
  }

  /** Holds every put until {@link #release()}. */
  public void holdPuts() {
    gate = new CountDownLatch(1);
  }

  public void release() {
    CountDownLatch g = gate;
    gate = null;
    if (g != null) {
      g.countDown();
    }
  }

  /** Waits until a put is being held. */
  public boolean awaitHeldPut(long seconds) throws InterruptedException {
    return blocked.await(seconds, TimeUnit.SECONDS);
  }

  public int puts() {
    return puts.get();
  }

  /** The SHA-256 (hex) each put declared with its content, by key. */
  public Map<String, String> declaredSha256() {
    return Map.copyOf(declaredSha256);
  }

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    if (key.startsWith(Layout.ACTIVITY)) {
      return super.putIfAbsent(key, content);
    }
    CountDownLatch g = gate;
    if (g != null) {
      blocked.countDown();
      try {
        if (!g.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("a held put was never released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreUnavailableException("interrupted", e);
      }
    }
    if (putsBeforeFailure.getAndDecrement() <= 0) {
      throw new StoreUnavailableException("injected failure writing " + key, null);
    }
    puts.incrementAndGet();
    content.sha256().ifPresent(digest -> {
      // as S3 does: the bytes must have the SHA-256 they are declared with
      if (!java.util.Arrays.equals(digest, sha256(content.toByteArray()))) {
        throw new dev.ratisoffload.store.IntegrityException("BadDigest for " + key, null);
      }
      declaredSha256.put(key, HexFormat.of().formatHex(digest));
    });
    return super.putIfAbsent(key, content);
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
