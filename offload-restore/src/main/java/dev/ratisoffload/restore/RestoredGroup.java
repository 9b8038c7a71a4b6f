package dev.ratisoffload.restore;

import java.nio.file.Path;

/** A group now in place: the generation it came from and its directory. */
public record RestoredGroup(GroupPlan plan, Path directory) {}
