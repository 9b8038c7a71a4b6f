package dev.ratisoffload.primitives;

import java.util.regex.Pattern;

/**
 * The rule for a cluster id, the operator's name for one Ratis cluster or Kafka source. Every key a
 * cluster writes is under its id, so the rule keeps ids safe as one segment of an object key.
 */
public final class ClusterIds {

  private static final Pattern CLUSTER_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private ClusterIds() {}

  public static boolean isValid(String id) {
    return id != null && CLUSTER_ID.matcher(id).matches();
  }

  /** Throws unless the cluster id is 1-64 of letters, digits, '.', '_' and '-', not starting with '.'. */
  public static String require(String id) {
    if (!isValid(id)) {
      throw new IllegalArgumentException("invalid cluster id '" + Printable.excerpt(id)
          + "': expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    return id;
  }
}
