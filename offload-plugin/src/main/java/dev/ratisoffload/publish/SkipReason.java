package dev.ratisoffload.publish;

import java.util.Locale;

/** Why a publish did nothing. A closed set: each is a value of the {@code reason} metric label. */
public enum SkipReason {
  /** This peer is not the group's leader; the leader publishes. */
  NOT_LEADER,
  /** This peer is leader but has not yet committed an entry of its term. */
  LEADER_NOT_READY,
  /** The state machine has no snapshot yet. */
  NO_SNAPSHOT,
  /** The newest snapshot is already published. */
  UNCHANGED,
  /** A publish of this group is already running. */
  IN_FLIGHT,
  /** Leadership moved (or the term changed) during the upload, so no manifest was written. */
  LEADERSHIP_LOST,
  /** Ratis replaced the snapshot before its files could be pinned; the next pass takes the new one. */
  SNAPSHOT_REPLACED,
  /** The offload handle was closed. */
  CLOSED;

  /** The metric label value, e.g. {@code not_leader}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
