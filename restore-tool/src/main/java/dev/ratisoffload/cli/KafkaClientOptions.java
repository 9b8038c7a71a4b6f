package dev.ratisoffload.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** How the Kafka commands reach a cluster: its brokers, the client's security properties, a timeout. */
public final class KafkaClientOptions {

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  @Option(names = "--bootstrap-server", required = true, paramLabel = "HOST:PORT[,HOST:PORT...]",
      description = "The Kafka brokers to connect to.")
  String bootstrapServers;

  @Option(names = "--command-config", paramLabel = "FILE",
      description = "Kafka client properties (security.protocol, sasl.*, ssl.*), as Kafka's own tools take them.")
  Path commandConfig;

  @Option(names = "--broker-timeout", paramLabel = "DURATION", defaultValue = "30s",
      converter = Converters.RatisDuration.class,
      description = "How long a broker request may take before the cluster counts as unreachable (exit 4) "
          + "(default ${DEFAULT-VALUE}).")
  Duration brokerTimeout;

  /** The properties of --command-config; an unreadable file is a usage error. */
  Map<String, String> clientProperties() {
    if (commandConfig == null) {
      return Map.of();
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "--command-config: cannot read " + commandConfig + ": "
          + e.getMessage());
    }
    Map<String, String> map = new TreeMap<>();
    properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
    return map;
  }
}
