package dev.ratisoffload.io;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;

/**
 * A walk over a tree that others change while it runs: an entry deleted or renamed away between reading
 * its directory and visiting it is skipped, not an error; every other failure is.
 */
public abstract class ConcurrentTreeVisitor extends SimpleFileVisitor<Path> {

  @Override
  public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
    if (e instanceof NoSuchFileException) {
      return FileVisitResult.CONTINUE;
    }
    throw e;
  }
}
