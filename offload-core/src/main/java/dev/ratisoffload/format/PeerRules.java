package dev.ratisoffload.format;

import dev.ratisoffload.primitives.Printable;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a manifest may say about peers. A restore prints these strings and writes them into Ratis's
 * {@code raft-meta.conf}, so a store someone else can write must not bring control characters, escape
 * sequences or absurd lengths. Within that, the rules take everything Ratis 3.3 takes: the publisher
 * encodes through them too, so a stricter rule would stop every publish of a cluster Ratis runs happily.
 */
public final class PeerRules {

  /** Longest peer id: far beyond any real one, short enough for a terminal line. */
  public static final int MAX_PEER_ID = 128;
  /**
   * host:port as Ratis's {@code NetUtils.createSocketAddr} and gRPC read it: a DNS name or IPv4 address
   * (at most 253 characters) or a bracketed IPv6 address, with a zone after '%' if any. An unbracketed
   * IPv6 address is not one: Ratis finds no host in it.
   */
  private static final Pattern ADDRESS = Pattern.compile(
      "(\\[[0-9A-Fa-f:.]{2,45}(?:%[A-Za-z0-9._~-]{1,64})?\\]|[A-Za-z0-9._-]{1,253}):([0-9]{1,5})");

  private PeerRules() {}

  /**
   * True for a peer id a manifest may hold: {@code RaftPeerId} takes any non-empty string; refused are
   * only ids longer than {@link #MAX_PEER_ID} and characters that are no text (control and format
   * characters, such as ESC or a bidirectional override; line separators; broken surrogate pairs).
   */
  public static boolean isValidPeerId(String id) {
    if (id == null || id.isEmpty() || id.length() > MAX_PEER_ID) {
      return false;
    }
    for (int i = 0; i < id.length(); ) {
      int c = id.codePointAt(i);
      switch (Character.getType(c)) {
        case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.LINE_SEPARATOR,
            Character.PARAGRAPH_SEPARATOR -> {
          return false;
        }
        default -> i += Character.charCount(c);
      }
    }
    return true;
  }

  /** True for host:port with a port from 1 to 65535. */
  public static boolean isValidAddress(String address) {
    if (address == null) {
      return false;
    }
    Matcher matcher = ADDRESS.matcher(address);
    return matcher.matches() && Integer.parseInt(matcher.group(2)) >= 1
        && Integer.parseInt(matcher.group(2)) <= 65535;
  }

  /** What the id rule allows, for error messages. */
  public static String peerIdRule() {
    return "1-" + MAX_PEER_ID + " characters, no control characters";
  }

  /** Checks the configuration and the publisher; each violation names the field. */
  static void check(List<Manifest.Peer> peers, Manifest.Publisher publisher) {
    require(peers != null && !peers.isEmpty(), "peers", "none");
    Set<String> ids = new HashSet<>();
    boolean voting = false;
    for (int i = 0; i < peers.size(); i++) {
      Manifest.Peer peer = peers.get(i);
      String field = "peers[" + i + "]";
      require(peer != null, field, null);
      require(isValidPeerId(peer.id()), field + ".id", peer.id());
      require(ids.add(peer.id()), field + ".id (duplicate)", peer.id());
      require(isValidAddress(peer.address()), field + ".address", peer.address());
      requireOptionalAddress(peer.clientAddress(), field + ".clientAddress");
      requireOptionalAddress(peer.adminAddress(), field + ".adminAddress");
      requireOptionalAddress(peer.dataStreamAddress(), field + ".dataStreamAddress");
      require(peer.priority() >= 0, field + ".priority", peer.priority());
      require(peer.role() != null, field + ".role", null);
      voting |= peer.role() == Manifest.Role.FOLLOWER;
    }
    require(voting, "peers (no voting peer, only listeners)", ids);
    require(publisher != null && isValidPeerId(publisher.peer()), "publisher.peer",
        publisher == null ? null : publisher.peer());
  }

  private static void requireOptionalAddress(String address, String field) {
    require(address == null || isValidAddress(address), field, address);
  }

  private static void require(boolean ok, String field, Object value) {
    if (!ok) {
      throw new IllegalArgumentException("invalid " + field + ": " + Printable.excerpt(String.valueOf(value)));
    }
  }
}
