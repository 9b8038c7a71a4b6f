package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.store.StoreDescription;
import dev.ratisoffload.store.StoreDescription.Setting;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.conf.RaftProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The plugin's keys and the command line's flags describe a store by one set of rules, with one message. */
class StoreFlagsAndKeysTest {

  private static final String CLUSTER = "orders-prod";

  /**
   * The same mistake, written as a node's key and as a flag, is refused with the same message but for the
   * key's and the flag's names; the command line exits 2 (usage).
   */
  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', value = {
      "ENDPOINT       | ftp://127.0.0.1:9000",
      "ENDPOINT       | 127.0.0.1:9000",
      "ENDPOINT       | http://AKIAHOSTILE:s3cret@127.0.0.1:9000",
      "REGION         | us east 1",
      "PATH_STYLE     | yes",
      "SSE            | aes",
      "SSE_KMS_KEY_ID | key-1",
      "CHECKSUM       | always",
      "URI            | ftp://backups/ratis"})
  void aMistakeGetsOneMessageFromTheKeysAndTheFlags(Setting setting, String value) {
    RaftProperties keys = new RaftProperties();
    OffloadConfigKeys.Store.setUri(keys, "s3://backups/ratis");
    keys.set(OffloadConfigKeys.Store.key(setting), value);
    String fromKeys = assertThrows(IllegalArgumentException.class,
        () -> OffloadConfigKeys.Store.description(keys)).getMessage();

    List<String> args = new ArrayList<>(List.of("list", "--cluster", CLUSTER));
    if (setting != Setting.URI) {
      args.addAll(List.of("--store", "s3://backups/ratis"));
    }
    args.addAll(List.of(S3Options.flag(setting), value));
    Cli.Result r = Cli.run(args.toArray(String[]::new));

    assertEquals(ExitCodes.USAGE, r.code(), r.toString());
    String inFlagWords = fromKeys;
    // Longest key first: offload.s3.sse is the start of offload.s3.sse.kms-key-id.
    for (Setting s : List.of(Setting.SSE_KMS_KEY_ID, Setting.SSE, Setting.URI, Setting.REGION, Setting.ENDPOINT,
        Setting.PROFILE, Setting.PATH_STYLE, Setting.CHECKSUM)) {
      inFlagWords = inFlagWords.replace(OffloadConfigKeys.Store.key(s), S3Options.flag(s));
    }
    assertTrue(inFlagWords.startsWith("invalid " + S3Options.flag(setting) + ": "), inFlagWords);
    assertTrue(r.err().contains(inFlagWords), "the keys' message in the flags' words: " + inFlagWords + "\n" + r);
  }

  /** What the drill does: one description, given to the nodes as keys and to offload as flags. */
  @Test
  void keysAndFlagsWrittenFromOneDescriptionDescribeIt() {
    RaftProperties keys = new RaftProperties();
    OffloadConfigKeys.Store.setUri(keys, "s3://backups/ratis");
    keys.set(OffloadConfigKeys.S3.ENDPOINT_KEY, "http://127.0.0.1:9000");
    keys.set(OffloadConfigKeys.S3.PATH_STYLE_KEY, "true");
    keys.set(OffloadConfigKeys.S3.SSE_KEY, "aws:kms");
    keys.set(OffloadConfigKeys.S3.SSE_KMS_KEY_ID_KEY, "key-1");
    keys.set(OffloadConfigKeys.S3.CHECKSUM_KEY, "when_required");
    StoreDescription description = OffloadConfigKeys.Store.description(keys);
    StoreDescription[] parsed = new StoreDescription[1];
    List<String> args = new ArrayList<>(List.of("list", "--cluster", CLUSTER));
    args.addAll(S3Options.flags(description));
    Cli.Result r = Cli.run(options -> {
      parsed[0] = options.description();
      throw new dev.ratisoffload.store.StoreUnavailableException("not opened in this test", null);
    }, args.toArray(String[]::new));
    assertEquals(ExitCodes.UNAVAILABLE, r.code(), r.toString());
    assertEquals(description, parsed[0]);
  }
}
