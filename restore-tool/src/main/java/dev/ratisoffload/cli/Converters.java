package dev.ratisoffload.cli;

import dev.ratisoffload.format.ManifestRules;
import dev.ratisoffload.format.PeerRules;
import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.primitives.Printable;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.ratis.util.TimeDuration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parsers for the flags' values; each failure names what was expected. Scripts use them too. */
public final class Converters {

  private Converters() {}

  /** An ISO-8601 instant ({@code 2026-05-01T12:00:00Z}), with an offset, or a date (its start, UTC). */
  public static final class Time implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String text) {
      try {
        return OffsetDateTime.parse(text).toInstant();
      } catch (DateTimeException ignored) {
        // try a date
      }
      try {
        return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
      } catch (DateTimeException e) {
        throw new TypeConversionException("'" + text + "' is not a time: expected an ISO-8601 instant "
            + "such as 2026-05-01T12:00:00Z or a date such as 2026-05-01 (its start, UTC)");
      }
    }
  }

  /** A duration as Ratis writes them: {@code 100ms}, {@code 30s}, {@code 15min}, {@code 24h}. */
  public static final class RatisDuration implements ITypeConverter<Duration> {
    private static final Pattern WITH_UNIT = Pattern.compile("\\s*[0-9]+\\s*[A-Za-z]+\\s*");

    @Override
    public Duration convert(String text) {
      try {
        if (WITH_UNIT.matcher(text).matches()) {
          long millis = TimeDuration.valueOf(text, TimeUnit.MILLISECONDS).toLong(TimeUnit.MILLISECONDS);
          if (millis > 0) {
            return Duration.ofMillis(millis);
          }
        }
      } catch (RuntimeException ignored) {
        // reported below
      }
      throw new TypeConversionException("'" + text + "' is not a duration: expected a positive number "
          + "with a unit, such as 100ms, 30s, 15min or 24h");
    }
  }

  /** A size in bytes: a number, with an optional unit B, KB, MB, GB, TB (powers of 1000) or KiB to TiB (of 1024). */
  public static final class ByteSize implements ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,18})\\s*([KMGT]i?B|B)?");
    private static final String UNITS = "BKMGT";

    @Override
    public Long convert(String text) {
      var m = SIZE.matcher(text.trim());
      if (m.matches()) {
        String unit = m.group(2) == null ? "B" : m.group(2);
        long base = unit.contains("i") ? 1024 : 1000;
        long factor = 1;
        for (int i = 0; i < UNITS.indexOf(unit.charAt(0)); i++) {
          factor *= base;
        }
        long number = Long.parseLong(m.group(1));
        if (number > 0 && number <= Long.MAX_VALUE / factor) {
          return number * factor;
        }
      }
      throw new TypeConversionException("'" + text + "' is not a size: expected a positive number of bytes,"
          + " optionally with a unit, such as 500MB, 20GiB or 2TiB");
    }
  }

  /** A group's UUID, in any case; written lowercase as Ratis names its directory. */
  public static final class Group implements ITypeConverter<String> {
    @Override
    public String convert(String text) {
      try {
        return ManifestRules.requireGroupUuid(UUID.fromString(text.trim()).toString());
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("'" + text + "' is not a group id: expected its UUID, "
            + "e.g. 02511d47-d67c-49a3-9011-abb3109a44c1");
      }
    }
  }

  /** A cluster id as the plugin's offload.cluster.id accepts it. */
  public static final class Cluster implements ITypeConverter<String> {
    @Override
    public String convert(String text) {
      try {
        return ClusterIds.require(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** {@code id=host:port,id=host:port}: new addresses for peers, by id. */
  public static final class Peers implements ITypeConverter<Map<String, String>> {
    /** Ids and addresses follow the rules a manifest's peers follow: what raft-meta.conf may hold. */
    @Override
    public Map<String, String> convert(String text) {
      Map<String, String> peers = new LinkedHashMap<>();
      for (String item : text.split(",", -1)) {
        int eq = item.indexOf('=');
        String id = eq < 0 ? "" : item.substring(0, eq).trim();
        String address = eq < 0 ? "" : item.substring(eq + 1).trim();
        if (!PeerRules.isValidPeerId(id) || !PeerRules.isValidAddress(address)) {
          throw new TypeConversionException("'" + Printable.excerpt(item) + "' is not id=host:port (e.g. "
              + "n1=10.0.0.5:9872,n2=10.0.0.6:9872, IPv6 as [::1]:9872); a peer id containing '=' or ',' "
              + "cannot be given here");
        }
        if (peers.put(id, address) != null) {
          throw new TypeConversionException("peer " + Printable.of(id) + " is given twice");
        }
      }
      return peers;
    }
  }
}
