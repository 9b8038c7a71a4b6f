package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.restore.Generations;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.StoreUnavailableException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every subcommand through the real command line, against a directory store; every exit code. */
class OffloadCommandTest {

  static final String CLUSTER = "prod-1";
  static final String G1 = "11111111-1111-4111-8111-111111111111";
  static final String G2 = "22222222-2222-4222-8222-222222222222";
  static final String OTHER_GROUP = "33333333-3333-4333-8333-333333333333";
  static final Instant T0 = Instant.parse("2026-05-01T00:00:00Z");
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path shared;

  static Path pristine;
  static String pristineUri;

  @TempDir
  Path tmp;

  @BeforeAll
  static void publish() throws IOException {
    pristine = Files.createDirectories(shared.resolve("store"));
    DirectoryObjectStore store = new DirectoryObjectStore(pristine);
    Path scratch = Files.createDirectories(shared.resolve("scratch"));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G1, 1, 100, T0, 3_000, 1));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G1, 2, 300, T0.plusSeconds(7200), 4_000, 2));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G2, 5, 40, T0.plusSeconds(60), 5_000, 3));
    Generations.publish(store, scratch, Generations.snapshot("staging", G1, 1, 7, T0, 100, 4));
    pristineUri = pristine.toUri().toString();
  }

  /** A private copy of the pristine store (a new one at each call), for tests that damage it. */
  Path copyOfStore() throws IOException {
    Path copy = Files.createTempDirectory(tmp, "store-copy-");
    try (Stream<Path> paths = Files.walk(pristine)) {
      for (Path p : paths.toList()) {
        Path target = copy.resolve(pristine.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    return copy;
  }

  static void assertOneErrorLine(Cli.Result r) {
    List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
    assertEquals(1, lines.size(), r.toString());
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r);
  }

  // ---- list

  @Test
  void listShowsGroupsNewestFirst() {
    Cli.Result r = Cli.run("list", "--store", pristineUri, "--cluster", CLUSTER);
    assertEquals(0, r.code(), r.toString());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(0).startsWith("CLUSTER"), r.toString());
    assertEquals(4, lines.size(), r.toString());
    assertTrue(lines.get(1).contains(G1) && lines.get(1).contains(" 300 "), r.toString());
    assertTrue(lines.get(2).contains(G1) && lines.get(2).contains(" 100 "), r.toString());
    assertTrue(lines.get(3).contains(G2) && lines.get(3).contains("2026-05-01T00:01:00Z"), r.toString());
    assertTrue(lines.get(3).contains("n0 (term 6)"), r.toString());
    assertFalse(r.out().contains("staging"), "another cluster is filtered out");
  }

  @Test
  void listAsJsonWithFilters() throws Exception {
    Cli.Result r = Cli.run("list", "--store", pristineUri, "--group", G1, "--since", "2026-05-01T01:00:00Z",
        "--json");
    assertEquals(0, r.code(), r.toString());
    JsonNode listed = JSON.readTree(r.out());
    assertEquals(1, listed.size(), r.toString());
    assertEquals(300, listed.get(0).get("index").asLong());
    assertEquals(4_000, listed.get(0).get("bytes").asLong());
    assertEquals("2026-05-01T02:00:00Z", listed.get(0).get("createdAt").asText());

    Cli.Result until = Cli.run("list", "--store", pristineUri, "--until", "2026-05-01", "--json");
    assertEquals(2, until.out().isBlank() ? -1 : JSON.readTree(until.out()).size(), until.toString());
  }

  // ---- verify

  @Test
  void verifyPassesForIntactGenerations() throws Exception {
    Cli.Result r = Cli.run("verify", "--store", pristineUri, "--cluster", CLUSTER, "--all", "--json");
    assertEquals(0, r.code(), r.toString());
    JsonNode verdicts = JSON.readTree(r.out());
    assertEquals(3, verdicts.size());
    verdicts.forEach(v -> assertEquals("OK", v.get("status").asText()));
    Cli.Result newest = Cli.run("verify", "--store", pristineUri, "--cluster", CLUSTER);
    assertEquals(0, newest.code(), newest.toString());
    assertEquals(3, newest.out().lines().count(), "a header and each group's newest: " + newest);
  }

  @Test
  void verifyNamesTheCorruptChunkAndExits3() throws Exception {
    Path store = copyOfStore();
    Path chunk = firstChunk(store, G2);
    byte[] bytes = Files.readAllBytes(chunk);
    bytes[0] ^= (byte) 0x80;
    Files.write(chunk, bytes);

    Cli.Result r = Cli.run("verify", "--store", store.toUri().toString(), "--cluster", CLUSTER);
    assertEquals(3, r.code(), r.toString());
    assertTrue(r.out().contains("CORRUPT"), r.toString());
    assertTrue(r.err().contains(chunk.getFileName().toString()) && r.err().contains("SHA-256"), r.toString());
    assertOneErrorLine(r);
  }

  /**
   * Retention on a live store removes a generation after verify listed it: while verify reads its
   * manifest, or after, while it reads its chunks (the manifest first, then the chunks, as the plugin
   * collects). Either way the generation is reported DELETED, not CORRUPT, and the rest still decides.
   */
  @ParameterizedTest(name = "removed while its chunks are read: {0}")
  @ValueSource(booleans = {false, true})
  void aGenerationRemovedWhileVerifyChecksItIsDeletedNotCorrupt(boolean duringChunks) throws Exception {
    Cli.Result r = runRemoving("verify", G1, 100, duringChunks, false, "--all");
    assertEquals(0, r.code(), r.toString());
    assertEquals(Map.of(100L, "DELETED", 300L, "OK", 40L, "OK"), statuses(r), r.toString());
  }

  /** Removed while checked, but nothing of its group verified, or nothing proves it was removed. */
  @Test
  void aRemovedGenerationFailsVerifyWhenNothingShowsItsGroupIsWell() throws Exception {
    Cli.Result newestOnly = runRemoving("verify", G1, 300, false, false);
    assertEquals(3, newestOnly.code(), "no generation of G1 verified: " + newestOnly);
    assertEquals(Map.of(300L, "DELETED", 40L, "OK"), statuses(newestOnly), newestOnly.toString());
    assertTrue(newestOnly.err().contains("run offload verify again"), newestOnly.toString());
    assertOneErrorLine(newestOnly);

    Cli.Result groupGone = runRemoving("verify", G2, 40, false, false, "--all");
    assertEquals(3, groupGone.code(), "G2 lists nothing any more: " + groupGone);
    assertEquals("CORRUPT", statuses(groupGone).get(40L), groupGone.toString());

    Cli.Result unanswered = runRemoving("verify", G1, 100, false, true, "--all");
    assertEquals(3, unanswered.code(), "the store did not say the manifest is gone: " + unanswered);
    assertEquals("CORRUPT", statuses(unanswered).get(100L), unanswered.toString());
  }

  @Test
  void listLeavesOutAGenerationRemovedWhileItRuns() throws Exception {
    Cli.Result r = runRemoving("list", G1, 100, false, false);
    assertEquals(0, r.code(), r.toString());
    assertEquals(Map.of(300L, "listed", 40L, "listed"), statuses(r), r.toString());
  }

  @Test
  void statusReadsTheGroupsNewestAgainWhenRetentionRemovedTheListedOne() throws Exception {
    Cli.Result r = runRemoving("status", G1, 300, false, false);
    assertEquals(0, r.code(), r.toString());
    assertEquals(Map.of(100L, "OK", 40L, "OK"), statuses(r), r.toString());
  }

  /**
   * Runs the command (as JSON, with {@code more} arguments) on a copy of the store, removing the group's
   * generation of that index at the first read of its manifest or, {@code duringChunks}, at the first
   * chunk read (that chunk too); {@code headFails}: asking for the manifest afterwards fails.
   */
  private Cli.Result runRemoving(String command, String group, long index, boolean duringChunks,
      boolean headFails, String... more) throws IOException {
    Path copy = copyOfStore();
    String removed = new GenerationReader(new DirectoryObjectStore(copy)).list(Layout.manifestPrefix(CLUSTER, group))
        .stream().filter(g -> g.id().index() == index).findFirst().orElseThrow().id().manifestKey();
    AtomicBoolean done = new AtomicBoolean();
    List<String> args = new ArrayList<>(List.of(command, "--store", copy.toUri().toString(), "--cluster",
        CLUSTER, "--json"));
    args.addAll(List.of(more));
    Cli.Result r = Cli.run(options -> new ForwardingObjectStore(options.open()) {
      @Override
      protected <T> T call(String key, Supplier<T> request) {
        boolean now = duringChunks ? key.contains("/chunks/") : key.equals(removed);
        if (now && done.compareAndSet(false, true)) {
          delegate.delete(removed);
          if (duringChunks) {
            delegate.delete(key);
          }
        }
        return request.get();
      }

      @Override
      public Optional<ObjectInfo> head(String key) {
        if (headFails && done.get()) {
          throw new StoreUnavailableException("the store stopped answering", null);
        }
        return super.head(key);
      }
    }, args.toArray(String[]::new));
    assertTrue(done.get(), "the generation was removed during the check");
    return r;
  }

  /** Each line's status by the generation's index ({@code listed} for a line of list without one). */
  private static Map<Long, String> statuses(Cli.Result r) throws IOException {
    Map<Long, String> statuses = new TreeMap<>();
    JSON.readTree(r.out()).forEach(v -> statuses.put(v.get("index").asLong(),
        v.has("status") ? v.get("status").asText() : "listed"));
    return statuses;
  }

  /**
   * verify writes nothing unless asked; with --record each generation checked gets a verification record,
   * which list shows (and the plugin's metrics and retention read).
   */
  @Test
  void verifyRecordsWhenAskedAndListShowsTheLastVerification() throws Exception {
    Path store = copyOfStore();
    String uri = store.toUri().toString();
    Cli.Result untouched = Cli.run("verify", "--store", uri, "--cluster", CLUSTER, "--all");
    assertEquals(0, untouched.code(), untouched.toString());
    assertFalse(Files.exists(store.resolve("ratis/verifications")), "read-only without --record");
    assertTrue(Cli.run("list", "--store", uri, "--cluster", CLUSTER).out().contains("never"));

    Path chunk = firstChunk(store, G2);
    byte[] bytes = Files.readAllBytes(chunk);
    bytes[0] ^= (byte) 0x80;
    Files.write(chunk, bytes);
    Cli.Result recorded = Cli.run("verify", "--store", uri, "--cluster", CLUSTER, "--all", "--record");
    assertEquals(3, recorded.code(), recorded.toString());
    assertTrue(recorded.err().contains("Verification records were written"), recorded.toString());

    JsonNode listed = JSON.readTree(Cli.run("list", "--store", uri, "--cluster", CLUSTER, "--json").out());
    Map<String, String> results = new java.util.HashMap<>();
    listed.forEach(l -> results.put(l.get("group").asText() + "/" + l.get("index").asLong(), l.get("verification").asText()));
    assertEquals(Map.of(G1 + "/300", "ok", G1 + "/100", "ok", G2 + "/40", "damaged"), results);
    listed.forEach(l -> assertFalse(l.get("verifiedAt").isNull(), l.toString()));
    Map<GenerationId, Layout.VerificationMark> marks = VerificationRecords.latest(new DirectoryObjectStore(store), CLUSTER, G2);
    VerificationRecord damaged = VerificationRecords.read(new DirectoryObjectStore(store),
        marks.values().iterator().next().key());
    assertEquals(List.of(new VerificationRecord.Damage(chunk.getFileName().toString(),
        VerificationRecord.Damage.WRONG_CONTENT, null)), damaged.damaged(), "names the damaged chunk, moves nothing");
    assertTrue(Files.exists(chunk), "verify moves nothing aside");
    assertTrue(damaged.verifiedBy().startsWith("offload verify"), damaged.toString());
    Cli.Result table = Cli.run("list", "--store", uri, "--cluster", CLUSTER);
    assertTrue(table.out().lines().anyMatch(l -> l.contains(G2) && l.endsWith("damaged")), table.toString());
  }

  @Test
  void aMissingChunkOfAGenerationStillStoredIsCorrupt() throws Exception {
    Path store = copyOfStore();
    Path chunk = firstChunk(store, G2);
    Files.delete(chunk);

    Cli.Result r = Cli.run("verify", "--store", store.toUri().toString(), "--cluster", CLUSTER, "--all");
    assertEquals(3, r.code(), r.toString());
    assertTrue(r.out().contains("CORRUPT") && !r.out().contains("DELETED"), r.toString());
    assertTrue(r.err().contains(chunk.getFileName().toString()), r.toString());
  }

  @Test
  void verifyOfANamedGroupWithoutGenerationsExits3() {
    Cli.Result r = Cli.run("verify", "--store", pristineUri, "--cluster", CLUSTER, "--group", OTHER_GROUP);
    assertEquals(3, r.code(), r.toString());
    assertTrue(r.out().contains("MISSING"), r.toString());
    assertOneErrorLine(r);
  }

  // ---- restore

  @Test
  void restoreWritesEveryGroupOfTheCluster() throws Exception {
    Path data = tmp.resolve("n1");
    Cli.Result r = Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--data-dir", data.toString(),
        "--json");
    assertEquals(0, r.code(), r.toString());
    JsonNode restored = JSON.readTree(r.out()).get("restored");
    assertEquals(2, restored.size());
    assertEquals(0, JSON.readTree(r.out()).get("skipped").size());
    assertEquals(300, restored.get(0).get("index").asLong());
    assertEquals(3, restored.get(0).get("startTerm").asLong());
    assertTrue(Files.isRegularFile(data.resolve(G1).resolve("sm/snapshot.2_300")));
    assertTrue(Files.isRegularFile(data.resolve(G1).resolve("sm/snapshot.2_300.md5")));
    assertTrue(Files.isRegularFile(data.resolve(G2).resolve("current/raft-meta")));
    assertTrue(Files.isRegularFile(data.resolve(G2).resolve("current/raft-meta.conf")));
  }

  @Test
  void restoreTableTellsToStartWithRecover() {
    Cli.Result r = Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--group", G2,
        "--data-dir", tmp.resolve("n2").toString(), "--peers", "n0=127.0.0.1:1,n1=127.0.0.1:2,n2=127.0.0.1:3");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("RECOVER"), r.toString());
    assertTrue(r.out().contains("n0=127.0.0.1:1"), r.toString());
  }

  @Test
  void restoreAtATimePicksEachGroupsGenerationOfThatTime() throws Exception {
    // At 01:00, G1's newest is index 100 (00:00; the next is 02:00) and G2's only one (00:01) qualifies.
    Cli.Result r = Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--at", "2026-05-01T01:00:00Z",
        "--data-dir", tmp.resolve("at").toString(), "--json");
    assertEquals(0, r.code(), r.toString());
    JsonNode restored = JSON.readTree(r.out()).get("restored");
    assertEquals(G1, restored.get(0).get("group").asText());
    assertEquals(100, restored.get(0).get("index").asLong());
    assertEquals(40, restored.get(1).get("index").asLong());

    Cli.Result tooEarly = Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--at", "2026-04-30",
        "--data-dir", tmp.resolve("at-early").toString());
    assertEquals(3, tooEarly.code(), tooEarly.toString());
    assertOneErrorLine(tooEarly);
  }

  @Test
  void restoreOfAnIndexPicksThatGeneration() throws Exception {
    Cli.Result r = Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--group", G1, "--index", "100",
        "--data-dir", tmp.resolve("idx").toString());
    assertEquals(0, r.code(), r.toString());
    assertTrue(Files.isRegularFile(tmp.resolve("idx").resolve(G1).resolve("sm/snapshot.1_100")));
  }

  @Test
  void restoreOntoAnExistingGroupDirectoryExits5() throws Exception {
    Path data = tmp.resolve("n3");
    Files.createDirectories(data.resolve(G2));
    Cli.Result r = Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--data-dir", data.toString());
    assertEquals(5, r.code(), r.toString());
    assertTrue(r.err().contains(G2) && r.err().contains("already exists"), r.toString());
    assertOneErrorLine(r);
    assertFalse(Files.exists(data.resolve(G1)));
  }

  @Test
  void restoreOfACorruptGenerationExits3AndWritesNoGroup() throws Exception {
    Path store = copyOfStore();
    Path chunk = firstChunk(store, G1);
    Files.write(chunk, new byte[] {1, 2, 3});
    Path data = tmp.resolve("n4");

    Cli.Result r = Cli.run("restore", "--store", store.toUri().toString(), "--cluster", CLUSTER,
        "--data-dir", data.toString());
    assertEquals(3, r.code(), r.toString());
    assertTrue(r.err().contains("No group directory was written"), r.toString());
    assertOneErrorLine(r);
    assertFalse(Files.exists(data.resolve(G1)));
    assertFalse(Files.exists(data.resolve(G2)));
  }

  /** A store whose groups live on different peers: G1 on n0-n2, G2 on n1, n2 and listener n3. */
  String multiRaftStore() throws IOException {
    Path store = Files.createDirectories(tmp.resolve("multi-store"));
    DirectoryObjectStore directory = new DirectoryObjectStore(store);
    Path scratch = Files.createDirectories(tmp.resolve("multi-scratch"));
    Generations.publish(directory, scratch, Generations.snapshot(CLUSTER, G1, 1, 10, T0, 100, 1));
    Generations.publish(directory, scratch, Generations.snapshot(CLUSTER, G2, 1, 20, T0, 100, 2).withPeers(List.of(
        Generations.PEERS.get(1), Generations.PEERS.get(2),
        new Manifest.Peer("n3", "127.0.0.1:9003", null, null, null, 0, Manifest.Role.LISTENER))));
    return store.toUri().toString();
  }

  @Test
  void restoreWithPeerWritesThatPeersGroupsAndSaysWhichItSkipped() throws Exception {
    String store = multiRaftStore();
    Path n0 = tmp.resolve("n0");
    Cli.Result r = Cli.run("restore", "--store", store, "--cluster", CLUSTER, "--peer", "n0", "--data-dir",
        n0.toString());
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("Skipped group " + G2 + " (peers n1,n2,n3): its configuration does not name"
        + " peer n0."), r.toString());
    assertTrue(Files.isDirectory(n0.resolve(G1)));
    assertFalse(Files.exists(n0.resolve(G2)));

    Cli.Result listener = Cli.run("restore", "--store", store, "--cluster", CLUSTER, "--peer", "n3", "--data-dir",
        tmp.resolve("n3").toString(), "--json");
    assertEquals(0, listener.code(), listener.toString());
    JsonNode report = JSON.readTree(listener.out());
    assertEquals("n3", report.get("peer").asText());
    assertEquals(G2, report.get("restored").get(0).get("group").asText());
    assertTrue(report.get("restored").get(0).get("peers").toString().contains("n3=127.0.0.1:9003(listener)"),
        report.toString());
    assertEquals(G1, report.get("skipped").get(0).get("group").asText());
    assertEquals("its configuration does not name peer n3", report.get("skipped").get(0).get("reason").asText());
  }

  @Test
  void restoreWithoutPeerOfGroupsOnDifferentPeersExits2ListingEachPeersGroups() throws Exception {
    Path data = tmp.resolve("all");
    Cli.Result r = Cli.run("restore", "--store", multiRaftStore(), "--cluster", CLUSTER, "--data-dir",
        data.toString());
    assertEquals(2, r.code(), r.toString());
    assertTrue(r.err().contains("peer n0 holds 1 group(s): " + G1 + ";"), r.toString());
    assertTrue(r.err().contains("peer n3 holds 1 group(s): " + G2), r.toString());
    assertTrue(r.err().contains("Run one restore per peer with --peer ID"), r.toString());
    assertOneErrorLine(r);
    assertFalse(Files.exists(data));
  }

  @Test
  void restoreIntoAGroupDirectoryOrAnEmptyDataDirExits2() throws Exception {
    Path data = tmp.resolve("n5");
    assertEquals(0, Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--group", G1,
        "--data-dir", data.toString()).code());
    for (String bad : List.of(data.resolve(G1).toString(), "")) {
      Cli.Result r = Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--group", G2,
          "--data-dir", bad);
      assertEquals(2, r.code(), r.toString());
      assertTrue(r.err().contains("nothing was written"), r.toString());
      assertOneErrorLine(r);
    }
    assertFalse(Files.exists(data.resolve(G1).resolve(G2)));
    assertFalse(Files.exists(Path.of(G2)));
  }

  // ---- status

  @Test
  void statusMaxAgeExits6ForAStaleGroupAnd0Otherwise() throws Exception {
    Clock now = Clock.fixed(T0.plusSeconds(7200 + 1800), ZoneOffset.UTC); // G1 newest is 30min old, G2 2h29min
    Cli.Result stale = Cli.run(now, "status", "--store", pristineUri, "--cluster", CLUSTER, "--max-age", "1h");
    assertEquals(6, stale.code(), stale.toString());
    assertTrue(stale.out().contains("STALE") && stale.out().contains("30min"), stale.toString());
    assertTrue(stale.err().contains(G2), stale.toString());
    assertOneErrorLine(stale);

    Cli.Result fresh = Cli.run(now, "status", "--store", pristineUri, "--cluster", CLUSTER, "--max-age", "3h",
        "--json");
    assertEquals(0, fresh.code(), fresh.toString());
    JsonNode statuses = JSON.readTree(fresh.out());
    assertEquals(2, statuses.size());
    assertEquals(1800, statuses.get(0).get("ageSeconds").asLong());

    Cli.Result only = Cli.run(now, "status", "--store", pristineUri, "--cluster", CLUSTER, "--group", G1,
        "--max-age", "1h");
    assertEquals(0, only.code(), only.toString());
  }

  @Test
  void statusWithoutMaxAgeReportsAndExits0() {
    Cli.Result r = Cli.run("status", "--store", pristineUri);
    assertEquals(0, r.code(), r.toString());
    assertEquals(4, r.out().lines().count(), r.toString());
  }

  @Test
  void statusOfAGroupNeverPublishedIsStaleUnderMaxAge() {
    Cli.Result r = Cli.run("status", "--store", pristineUri, "--cluster", CLUSTER, "--group", OTHER_GROUP,
        "--max-age", "24h");
    assertEquals(6, r.code(), r.toString());
    assertTrue(r.out().contains("NEVER"), r.toString());
  }

  // ---- usage (2), store (4), internal (1)

  @Test
  void invalidInvocationsExit2WithOneLine() {
    List<String[]> invocations = new ArrayList<>();
    invocations.add(new String[] {"list"});
    invocations.add(new String[] {"frobnicate"});
    invocations.add(new String[] {"list", "--store", "ftp://x"});
    invocations.add(new String[] {"list", "--store", pristineUri, "--group", "not-a-uuid"});
    invocations.add(new String[] {"list", "--store", pristineUri, "--since", "yesterday"});
    invocations.add(new String[] {"status", "--store", pristineUri, "--max-age", "24"});
    invocations.add(new String[] {"list", "--store", pristineUri, "--sse", "rot13"});
    invocations.add(new String[] {"restore", "--store", pristineUri, "--cluster", CLUSTER, "--data-dir", "d",
        "--index", "300"});
    invocations.add(new String[] {"restore", "--store", pristineUri, "--cluster", CLUSTER, "--data-dir", "d",
        "--index", "300", "--at", "2026-05-01"});
    invocations.add(new String[] {"restore", "--store", pristineUri, "--cluster", CLUSTER, "--data-dir", "d",
        "--peers", "n0:127.0.0.1"});
    for (String[] args : invocations) {
      Cli.Result r = Cli.run(args);
      assertEquals(2, r.code(), String.join(" ", args) + "\n" + r);
      assertOneErrorLine(r);
    }
  }

  /** {@code offload restore} of group G2 into {@code data} with {@code --peers peers}. */
  private Cli.Result restoreG2(Path data, String peers) {
    return Cli.run("restore", "--store", pristineUri, "--cluster", CLUSTER, "--group", G2,
        "--data-dir", data.toString(), "--peers", peers);
  }

  @Test
  void peersForUnknownIdsExit2BeforeAnythingIsWritten() {
    Path data = tmp.resolve("n5");
    Cli.Result r = restoreG2(data, "n0=h:1,n1=h:2");
    assertEquals(2, r.code(), r.toString());
    assertTrue(r.err().contains("n2"), r.toString());
    assertFalse(Files.exists(data));
  }

  @Test
  void peersSaysWhichIdsItCannotExpressEscapesWhatItEchoesAndTakesIpv6() {
    Path data = tmp.resolve("n6");
    Cli.Result r = restoreG2(data, "rack=1=h:1");
    assertEquals(2, r.code(), r.toString());
    assertTrue(r.err().contains("a peer id containing '=' or ',' cannot be given here"), r.toString());
    Cli.Result hostile = restoreG2(data, "n\u001b[2J=h:2");
    assertEquals(2, hostile.code(), hostile.toString());
    assertFalse(hostile.err().contains("\u001b"), hostile.toString());
    assertFalse(Files.exists(data));

    Cli.Result ipv6 = restoreG2(data, "n0=[::1]:1,n1=[::1]:2,n2=[fe80::1%eth0]:3");
    assertEquals(0, ipv6.code(), ipv6.toString());
  }

  @Test
  void aMissingStoreDirectoryExits4() {
    Cli.Result r = Cli.run("status", "--store", tmp.resolve("unmounted").toUri().toString());
    assertEquals(4, r.code(), r.toString());
    assertOneErrorLine(r);
  }

  @Test
  void anUnreachableS3EndpointExits4() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    System.setProperty("aws.accessKeyId", "test");
    System.setProperty("aws.secretAccessKey", "test-secret");
    Cli.Result r = Cli.run("verify", "--store", "s3://backups/ratis", "--endpoint", "http://127.0.0.1:" + port,
        "--path-style", "--cluster", CLUSTER);
    assertEquals(4, r.code(), r.toString());
    assertOneErrorLine(r);
    assertFalse(r.err().contains("test-secret"));
  }

  @Test
  void credentialsComeFromANamedProfile() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    Path credentials = Files.writeString(tmp.resolve("credentials"),
        "[drill]\naws_access_key_id = from-profile\naws_secret_access_key = profile-secret\n");
    Path config = Files.writeString(tmp.resolve("config"), "");
    String oldCredentials = System.setProperty("aws.sharedCredentialsFile", credentials.toString());
    String oldConfig = System.setProperty("aws.configFile", config.toString());
    try {
      Cli.Result found = Cli.run("list", "--store", "s3://backups/ratis", "--endpoint", "http://127.0.0.1:" + port,
          "--path-style", "--profile", "drill");
      assertEquals(4, found.code(), found.toString());
      assertTrue(found.err().contains("127.0.0.1:" + port), "got as far as the endpoint: " + found);
      assertFalse(found.err().contains("profile-secret"));

      Cli.Result missing = Cli.run("list", "--store", "s3://backups/ratis", "--endpoint", "http://127.0.0.1:" + port,
          "--path-style", "--profile", "nope");
      assertEquals(4, missing.code(), missing.toString());
      assertTrue(missing.err().contains("profile 'nope'"), missing.toString());
      assertOneErrorLine(missing);
    } finally {
      restore("aws.sharedCredentialsFile", oldCredentials);
      restore("aws.configFile", oldConfig);
    }
  }

  static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }

  @Test
  void anUnexpectedExceptionExits1AsAnInternalError() {
    Cli.Result r = Cli.run(options -> {
      throw new IllegalStateException("boom");
    }, "list", "--store", pristineUri);
    assertEquals(1, r.code(), r.toString());
    assertTrue(r.err().contains("internal error") && r.err().contains("report"), r.toString());
    assertOneErrorLine(r);

    Cli.Result verbose = Cli.run(options -> {
      throw new IllegalStateException("boom");
    }, "list", "--store", pristineUri, "--verbose");
    assertEquals(1, verbose.code());
    assertTrue(verbose.err().contains("\tat "), "--verbose prints the stack trace: " + verbose);

    Cli.Result before = Cli.run(options -> {
      throw new IllegalStateException("boom");
    }, "--verbose", "list", "--store", pristineUri);
    assertEquals(1, before.code());
    assertTrue(before.err().contains("\tat "), "--verbose before the subcommand too: " + before);
  }

  @Test
  void verboseSwitchesTheLibrariesLogsOnBeforeTheCommandRuns() {
    String property = "org.slf4j.simpleLogger.defaultLogLevel";
    String saved = System.getProperty(property);
    try {
      System.clearProperty(property);
      Cli.run("list", "--store", pristineUri);
      assertEquals(null, System.getProperty(property), "no logs without --verbose");
      Cli.Result r = Cli.run(options -> {
        assertEquals("info", System.getProperty(property), "logs on before the store is opened");
        return new DirectoryObjectStore(pristine);
      }, "list", "--store", pristineUri, "--verbose");
      assertEquals(0, r.code(), r.toString());
    } finally {
      restore(property, saved);
    }
  }

  @Test
  void everySubcommandHelpTeachesWithAnExample() {
    for (String command : List.of("list", "verify", "restore", "status")) {
      Cli.Result r = Cli.run(command, "--help");
      assertEquals(0, r.code(), r.toString());
      assertTrue(r.out().contains("Example") && r.out().contains("offload " + command + " --store"), r.toString());
    }
  }

  /** Every command's help lists every exit code that {@link ExitCodes} defines, after the same heading. */
  @Test
  void everyHelpListsTheExitCodes() throws IllegalAccessException {
    List<Integer> codes = new ArrayList<>();
    for (java.lang.reflect.Field field : ExitCodes.class.getFields()) {
      if (field.getType() == int.class) {
        codes.add(field.getInt(null));
      }
    }
    for (List<String> command : List.of(List.<String>of(), List.of("list"), List.of("verify"), List.of("restore"),
        List.of("status"), List.of("gc"), List.of("kafka"), List.of("kafka", "backup"), List.of("kafka", "restore"),
        List.of("kafka", "list"), List.of("kafka", "verify"))) {
      List<String> args = new ArrayList<>(command);
      args.add("--help");
      Cli.Result r = Cli.run(args.toArray(String[]::new));
      assertEquals(0, r.code(), r.toString());
      int heading = r.out().indexOf("Exit codes (every subcommand):");
      assertTrue(heading >= 0, command + " --help lists no exit codes: " + r);
      String codesSection = r.out().substring(heading);
      for (int code : codes) {
        assertTrue(codesSection.contains("\n  " + code + "   "), command + " --help lacks exit code " + code + ": " + r);
      }
    }
  }

  static Path firstChunk(Path store, String group) throws IOException {
    try (Stream<Path> files = Files.walk(store.resolve("ratis/chunks/" + CLUSTER + "/" + group))) {
      return files.filter(Files::isRegularFile).sorted().findFirst().orElseThrow();
    }
  }
}
