package dev.ratisoffload.bench;

import dev.ratisoffload.testkit.EmbeddedS3;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * S3Proxy in a JVM of its own, for the cost benchmark: started at the lowest CPU priority, it stands in
 * for a store on other machines, so that the CPU it spends serving uploads is not counted as the
 * publishing peer's cost to its cluster.
 *
 * <p>Commands: {@code endpoint}, {@code bucket <name>}, {@code drop <name>}.
 */
public final class StoreServer {

  public static void main(String[] args) throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start(Path.of(args[0]))) {
      ChildJvm.serve(words -> {
        Map<String, Object> reply = new LinkedHashMap<>();
        switch (words[0]) {
          case "endpoint" -> reply.put("endpoint", s3.endpoint());
          case "bucket" -> s3.createBucket(words[1]);
          case "drop" -> Benchmarks.dropBucket(s3, words[1]);
          default -> throw new IllegalArgumentException("unknown command " + words[0]);
        }
        return reply;
      });
    }
    System.exit(0);
  }
}
