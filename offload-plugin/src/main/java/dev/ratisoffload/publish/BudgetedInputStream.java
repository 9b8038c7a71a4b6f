package dev.ratisoffload.publish;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A snapshot file read within a {@link BandwidthBudget}: reads at most {@link #SLICE} bytes at a time
 * and takes what it read from the budget before returning it, so that everything downstream (chunking,
 * hashing, uploading) runs at the budget's pace, in steps small enough to keep the CPU use even.
 */
final class BudgetedInputStream extends FilterInputStream {

  /** The most bytes one read returns: at 16 MiB/s, 8 ms worth. */
  static final int SLICE = 128 * 1024;

  private final BandwidthBudget budget;

  BudgetedInputStream(InputStream in, BandwidthBudget budget) {
    super(in);
    this.budget = budget;
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    if (b >= 0) {
      take(1);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = in.read(buffer, offset, Math.min(length, SLICE));
    if (n > 0) {
      take(n);
    }
    return n;
  }

  private void take(int bytes) throws IOException {
    try {
      budget.acquire(bytes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while waiting for the publish bandwidth budget");
    }
  }
}
