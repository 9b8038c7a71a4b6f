package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.store.DirectoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A group's freshness, judged on its newest generation as read from a directory store. */
class FreshnessTest {

  private static final String GROUP = "11111111-1111-4111-8111-111111111111";
  private static final Instant CREATED = Instant.parse("2026-05-01T00:00:00Z");

  @TempDir
  Path tmp;

  @Test
  void aGenerationOlderThanAllowedIsStaleAndOneAsOldAsAllowedIsNot() throws Exception {
    GenerationCatalog.Entry newest = newest(false);
    Instant now = CREATED.plus(Duration.ofHours(1));

    assertEquals(Freshness.OK, Freshness.of(newest, now, Duration.ofHours(1)));
    assertEquals(Freshness.STALE, Freshness.of(newest, now.plusMillis(1), Duration.ofHours(1)));
    assertEquals(Freshness.OK, Freshness.of(newest, now.plus(Duration.ofDays(365)), null));
    assertEquals(Duration.ofHours(1), Freshness.age(newest, now));
  }

  @Test
  void anUnreadableNewestManifestIsCorruptWhateverItsAge() throws Exception {
    assertEquals(Freshness.CORRUPT, Freshness.of(newest(true), CREATED, Duration.ofDays(1)));
  }

  private GenerationCatalog.Entry newest(boolean damageManifest) throws Exception {
    DirectoryObjectStore store = new DirectoryObjectStore(Files.createDirectories(tmp.resolve("store")));
    var published = Generations.publish(store, Files.createDirectories(tmp.resolve("scratch")),
        Generations.snapshot("c", GROUP, 1, 100, CREATED, 2_000, 1));
    if (damageManifest) {
      Path manifest = tmp.resolve("store").resolve(published.id().manifestKey());
      Files.writeString(manifest, "not a manifest", StandardCharsets.UTF_8);
    }
    GenerationCatalog catalog = new GenerationCatalog(store);
    List<StoredGeneration> listed = catalog.find(new Selection("c", Set.of())).values().iterator().next();
    return catalog.readNewest(listed);
  }
}
