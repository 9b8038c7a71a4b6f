package dev.ratisoffload.retention;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What a {@link RetentionPolicy} keeps of one group's generations, and why. Pure: it reads nothing and
 * deletes nothing, so it can be tested on any history.
 */
public final class RetentionPlan {

  /** A generation as retention sees it: its index and when it was created. */
  public record Candidate(long index, long term, Instant createdAt) {}

  /** Why the newest generation whose latest verification passed is kept, whatever the policy. */
  public static final String NEWEST_VERIFIED = "newest verified";
  /** Why everything is kept when no generation of the group is verified. */
  public static final String NONE_VERIFIED = "no verified generation";

  private final Map<Candidate, Set<String>> kept = new LinkedHashMap<>();
  private final List<Candidate> expired = new ArrayList<>();

  private RetentionPlan() {}

  /**
   * Plans for one group's generations (in any order). Besides what the policy keeps, and the newest, the
   * newest generation whose latest verification passed is kept; with a rule set and no such generation
   * nothing expires (fail closed: no generation of the group is known to be restorable).
   *
   * @param verified the generations whose latest verification passed
   */
  public static RetentionPlan of(List<Candidate> generations, RetentionPolicy policy, Set<Candidate> verified) {
    RetentionPlan plan = new RetentionPlan();
    List<Candidate> newestFirst = new ArrayList<>(generations);
    newestFirst.sort(Comparator.comparingLong(Candidate::index).thenComparingLong(Candidate::term).reversed());
    if (newestFirst.isEmpty()) {
      return plan;
    }
    Map<Candidate, Set<String>> reasons = new LinkedHashMap<>();
    newestFirst.forEach(c -> reasons.put(c, new TreeSet<>()));
    Candidate newest = newestFirst.get(0);
    reasons.get(newest).add("newest");
    if (!policy.isEnabled()) {
      newestFirst.forEach(c -> reasons.get(c).add("no retention rule"));
    }
    Optional<Candidate> newestVerified = newestFirst.stream().filter(verified::contains).findFirst();
    if (newestVerified.isPresent()) {
      reasons.get(newestVerified.get()).add(NEWEST_VERIFIED);
    } else {
      newestFirst.forEach(c -> reasons.get(c).add(NONE_VERIFIED));
    }
    for (int i = 0; i < Math.min(policy.keepLast(), newestFirst.size()); i++) {
      reasons.get(newestFirst.get(i)).add("last " + policy.keepLast());
    }
    if (!policy.keepWithin().isZero()) {
      Instant cutoff = newest.createdAt().minus(policy.keepWithin());
      newestFirst.stream().filter(c -> !c.createdAt().isBefore(cutoff))
          .forEach(c -> reasons.get(c).add("within " + policy.keepWithin()));
    }
    keepNewestPerBucket(newestFirst, policy.keepHourly(), "hourly", t -> t.truncatedTo(ChronoUnit.HOURS), reasons);
    keepNewestPerBucket(newestFirst, policy.keepDaily(), "daily", t -> t.truncatedTo(ChronoUnit.DAYS), reasons);
    keepNewestPerBucket(newestFirst, policy.keepWeekly(), "weekly",
        t -> t.get(IsoFields.WEEK_BASED_YEAR) * 100L + t.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR), reasons);
    keepNewestPerBucket(newestFirst, policy.keepMonthly(), "monthly",
        t -> t.getYear() * 100L + t.getMonthValue(), reasons);
    for (Candidate c : newestFirst) {
      if (reasons.get(c).isEmpty()) {
        plan.expired.add(c);
      } else {
        plan.kept.put(c, reasons.get(c));
      }
    }
    return plan;
  }

  /** Walks newest first; the first generation met in each new bucket is that bucket's newest. */
  private static void keepNewestPerBucket(List<Candidate> newestFirst, int count, String rule,
      Function<LocalDateTime, Object> bucketOf, Map<Candidate, Set<String>> reasons) {
    Set<Object> buckets = new HashSet<>();
    for (Candidate c : newestFirst) {
      if (buckets.size() >= count) {
        return;
      }
      if (buckets.add(bucketOf.apply(LocalDateTime.ofInstant(c.createdAt(), ZoneOffset.UTC)))) {
        reasons.get(c).add(rule + " " + count);
      }
    }
  }

  /** Kept generations, newest first, each with the rules that keep it. */
  public Map<Candidate, Set<String>> kept() {
    return kept;
  }

  /** Generations no rule keeps, newest first. */
  public List<Candidate> expired() {
    return expired;
  }
}
