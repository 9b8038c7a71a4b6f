package dev.ratisoffload.store;

import dev.ratisoffload.primitives.Printable;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where generations live: {@code s3://bucket/prefix} or {@code file:///absolute/path}.
 *
 * @param scheme "s3" or "file"
 * @param bucket the S3 bucket; empty for a directory
 * @param prefix the key prefix inside the bucket, without leading or trailing '/'; empty for none
 * @param directory the directory of a {@code file:} URI; null for S3
 */
public record StoreUri(String scheme, String bucket, String prefix, Path directory) {

  /** User-info: what stands between the scheme's "//" and an "@" before the authority ends. */
  private static final Pattern USER_INFO = Pattern.compile("^(\\s*[A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@");

  public static StoreUri parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("store URI is empty: expected s3://bucket/prefix or file:///path");
    }
    if (USER_INFO.matcher(text).find()) {
      throw new IllegalArgumentException("the store URI " + withoutUserInfo(text) + " carries a user or"
          + " credentials before '@', which are never read from a URI (and are not shown here): remove them"
          + " and pass credentials through a profile (--profile, offload.s3.profile) or the AWS environment");
    }
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw invalid(text, e.getReason());
    }
    String scheme = uri.getScheme();
    if ("s3".equals(scheme)) {
      String bucket = uri.getHost();
      if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
        throw invalid(text, "the bucket name must be 3-63 of lowercase letters, digits, '.' and '-'");
      }
      String prefix = trimSlashes(uri.getPath() == null ? "" : uri.getPath());
      if (!prefix.isEmpty()) {
        try {
          ObjectKeys.requireValid(prefix);
        } catch (IllegalArgumentException e) {
          throw invalid(text, e.getMessage());
        }
      }
      if (uri.getQuery() != null || uri.getFragment() != null) {
        throw invalid(text, "no query or fragment is allowed");
      }
      return new StoreUri("s3", bucket, prefix, null);
    }
    if ("file".equals(scheme)) {
      if (uri.getAuthority() != null || uri.getPath() == null || !uri.getPath().startsWith("/")) {
        throw invalid(text, "a directory is written file:///absolute/path");
      }
      return new StoreUri("file", "", "", Path.of(uri).normalize());
    }
    throw invalid(text, "the scheme must be s3 or file");
  }

  /**
   * The text of a URI with its user-info replaced by "***", so that a secret someone put there never
   * reaches a message or a log; the rest is made printable.
   */
  public static String withoutUserInfo(String text) {
    return text == null ? Printable.of(null) : Printable.excerpt(USER_INFO.matcher(text).replaceFirst("$1***@"));
  }

  private static IllegalArgumentException invalid(String text, String why) {
    return new IllegalArgumentException("'" + withoutUserInfo(text) + "' is not a store URI: " + why
        + " (expected s3://bucket/prefix or file:///path)");
  }

  private static String trimSlashes(String path) {
    int start = 0;
    int end = path.length();
    while (start < end && path.charAt(start) == '/') {
      start++;
    }
    while (end > start && path.charAt(end - 1) == '/') {
      end--;
    }
    return path.substring(start, end);
  }

  @Override
  public String toString() {
    return "s3".equals(scheme)
        ? "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix)
        : directory.toUri().toString();
  }
}
