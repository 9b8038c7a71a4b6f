package dev.ratisoffload.restore;

import dev.ratisoffload.store.IntegrityException;

/** The store holds no generation matching what was asked for; retrying cannot help. */
public class MissingBackupException extends IntegrityException {

  public MissingBackupException(String message) {
    super(message);
  }
}
