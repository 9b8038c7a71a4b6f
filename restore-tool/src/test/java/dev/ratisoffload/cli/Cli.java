package dev.ratisoffload.cli;

import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.function.Function;

/** Runs {@code offload} in-process and captures what it prints. */
final class Cli {

  record Result(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private Cli() {}

  static Result run(String... args) {
    return run(new OffloadCommand(), args);
  }

  static Result run(Clock clock, String... args) {
    return run(new OffloadCommand(StoreOptions::open, clock), args);
  }

  static Result run(Function<StoreOptions, ObjectStore> opener, String... args) {
    return run(new OffloadCommand(opener, Clock.systemUTC()), args);
  }

  private static Result run(OffloadCommand command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = OffloadCommand.run(command, new PrintWriter(out), new PrintWriter(err), args);
    return new Result(code, out.toString(), err.toString());
  }
}
