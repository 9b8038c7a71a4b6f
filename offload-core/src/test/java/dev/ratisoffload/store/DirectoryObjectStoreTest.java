package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
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
