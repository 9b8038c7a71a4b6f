package dev.ratisoffload.store;

import java.time.Instant;

/** A stored object as a listing or head request sees it. */
public record ObjectInfo(String key, long size, Instant lastModified) {}
