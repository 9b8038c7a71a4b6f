package dev.ratisoffload.activity;

import dev.ratisoffload.store.StoreException;

/**
 * A publish or a sweep stopped by the protocol that keeps them apart ({@link GroupActivity}): it waited
 * too long for the other, or it took too long itself. Nothing it would have made visible was; retrying
 * later may succeed.
 */
public class GroupActivityException extends StoreException {

  public GroupActivityException(String message) {
    super(message);
  }

  @Override
  public boolean isRetriable() {
    return true;
  }
}
