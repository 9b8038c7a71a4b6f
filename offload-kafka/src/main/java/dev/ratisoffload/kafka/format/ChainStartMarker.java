package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.IntegrityException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code kafka gc} writes before it removes the start of a chain: the chain now starts at
 * {@code firstOffset}, with the segment whose SHA-256 is {@code segmentSha256}. That segment names a
 * predecessor that is (or is about to be) gone; the marker is what makes the chain verifiable again, so
 * it is written first, with put-if-absent, and a collection killed before its deletes end leaves a chain
 * that still verifies. The bytes depend only on the two fields, so a collection run again writes the same.
 */
public record ChainStartMarker(long firstOffset, String segmentSha256) {

  /** Far more than a marker's text: a bigger object is not one. */
  public static final int MAX_BYTES = 256;
  private static final Pattern TEXT = Pattern.compile(
      "offload kafka chain start\nfirst-offset: ([0-9]{1,19})\nsegment-sha256: ([0-9a-f]{64})\n");

  public ChainStartMarker {
    if (firstOffset < 0 || segmentSha256 == null || !segmentSha256.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("invalid chain start: offset " + firstOffset + ", SHA-256 " + segmentSha256);
    }
  }

  public byte[] encode() {
    return ("offload kafka chain start\nfirst-offset: " + firstOffset + "\nsegment-sha256: " + segmentSha256 + "\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** Parses a marker read from {@code key}, which must name the same offset; anything else is corrupt. */
  public static ChainStartMarker decode(byte[] bytes, KafkaLayout.ChainStartKey key) {
    String text = new String(bytes, StandardCharsets.US_ASCII);
    Matcher m = TEXT.matcher(text);
    ChainStartMarker marker = null;
    if (bytes.length <= MAX_BYTES && m.matches()) {
      try {
        marker = new ChainStartMarker(Long.parseLong(m.group(1)), m.group(2));
      } catch (NumberFormatException e) {
        marker = null;
      }
    }
    if (marker == null) {
      throw new IntegrityException("chain-start marker " + key.key() + " is corrupt: it does not hold the text"
          + " kafka gc writes (it holds '" + Printable.excerpt(text) + "')");
    }
    if (marker.firstOffset() != key.firstOffset()) {
      throw new IntegrityException("chain-start marker " + key.key() + " is corrupt: it names offset "
          + marker.firstOffset() + ", its key " + key.firstOffset());
    }
    return marker;
  }
}
