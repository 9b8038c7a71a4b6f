package dev.ratisoffload.primitives;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** SHA-256 and MD5 helpers; digests are written as lowercase hex everywhere. */
public final class Hashes {

  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern MD5_HEX = Pattern.compile("[0-9a-f]{32}");

  private Hashes() {}

  public static MessageDigest sha256() {
    return digest("SHA-256");
  }

  public static MessageDigest md5() {
    return digest("MD5");
  }

  public static String sha256Hex(byte[] bytes) {
    return hex(sha256().digest(bytes));
  }

  public static String sha256Hex(byte[] bytes, int offset, int length) {
    MessageDigest digest = sha256();
    digest.update(bytes, offset, length);
    return hex(digest.digest());
  }

  public static String hex(byte[] digest) {
    return HexFormat.of().formatHex(digest);
  }

  public static boolean isSha256Hex(String text) {
    return text != null && SHA256_HEX.matcher(text).matches();
  }

  public static boolean isMd5Hex(String text) {
    return text != null && MD5_HEX.matcher(text).matches();
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is required by the Java platform", e);
    }
  }
}
