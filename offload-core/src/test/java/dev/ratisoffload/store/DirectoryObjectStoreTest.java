package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.store.ObjectStore.PutOutcome;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryObjectStoreTest extends ObjectStoreContract {

  @TempDir
  static Path root;

  private static DirectoryObjectStore store;

  @Override
  ObjectStore store() {
    if (store == null) {
      store = new DirectoryObjectStore(root);
    }
    return store;
  }

  /**
   * Atomic under concurrent writers: the hard link either wins or finds the key taken. (For S3 this
   * is the server's guarantee: AWS S3 gives it, S3Proxy's filesystem backend does not.)
   */
  @Test
  void concurrentWritersOfOneKeyYieldExactlyOneWinner() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Object>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        byte[] content = bytes("writer-" + i);
        results.add(pool.submit((Callable<Object>) () -> {
          try {
            return store().putIfAbsent(key("race"), Content.of(content));
          } catch (ObjectConflictException e) {
            return e;
          }
        }));
      }
      int created = 0;
      for (Future<Object> result : results) {
        Object outcome = result.get();
        if (outcome == PutOutcome.CREATED) {
          created++;
        } else {
          assertTrue(outcome instanceof ObjectConflictException, String.valueOf(outcome));
        }
      }
      assertEquals(1, created);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void listsWhileAnotherThreadWritesInTheSameDirectory() throws Exception {
    String dir = key("busy") + "/";
    java.util.concurrent.CompletableFuture<Void> writer = java.util.concurrent.CompletableFuture.runAsync(() -> {
      for (int i = 0; i < 150; i++) {
        store().putIfAbsent(dir + String.format("%05d", i), Content.of(bytes("v" + i)));
      }
    });
    int lists = 0;
    while (!writer.isDone()) {
      store().list(dir); // temporary files appear and vanish under the walk: never an error
      lists++;
    }
    writer.get();
    assertEquals(150, store().list(dir).size());
    org.junit.jupiter.api.Assertions.assertTrue(lists > 0);
  }

  @Test
  void leavesNoTemporaryFiles() throws IOException {
    store().putIfAbsent(key("k"), Content.of(bytes("v")));
    assertThrows(ObjectConflictException.class, () -> store().putIfAbsent(key("k"), Content.of(bytes("w"))));
    try (Stream<Path> files = Files.walk(root)) {
      assertEquals(0, files.filter(p -> p.getFileName().toString().startsWith(".")).count());
    }
  }

  @Test
  void aRootInsideAHiddenDirectoryListsItsObjects() throws IOException {
    DirectoryObjectStore hidden = new DirectoryObjectStore(Files.createDirectories(root.resolve(".backups/store")));
    hidden.putIfAbsent("ratis/a", Content.of(bytes("v")));
    assertEquals(java.util.List.of("ratis/a"),
        hidden.list("ratis/").stream().map(ObjectInfo::key).toList());
  }

  @Test
  void aFailedWriteLeavesNothingAtTheKey() {
    Content failing = new Content() {
      @Override
      public long size() {
        return 10;
      }

      @Override
      public java.io.InputStream open() {
        return new java.io.InputStream() {
          int left = 5;

          @Override
          public int read() throws IOException {
            if (left-- <= 0) {
              throw new IOException("source failed");
            }
            return 'x';
          }
        };
      }
    };
    assertThrows(StoreException.class, () -> store().putIfAbsent(key("half"), failing));
    assertEquals(java.util.Optional.empty(), store().head(key("half")));
  }
}
