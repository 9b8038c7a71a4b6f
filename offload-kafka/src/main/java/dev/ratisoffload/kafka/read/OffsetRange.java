package dev.ratisoffload.kafka.read;

/** Offsets {@code first} to {@code last}, both included. */
public record OffsetRange(long first, long last) {

  public long count() {
    return last - first + 1;
  }

  @Override
  public String toString() {
    return first == last ? Long.toString(first) : first + "-" + last;
  }
}
