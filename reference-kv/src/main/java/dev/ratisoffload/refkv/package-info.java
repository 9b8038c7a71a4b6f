/**
 * A small replicated key-value store on Apache Ratis, used as the integration example of snapshot
 * offload and by the project's tests and demo.
 *
 * <ul>
 *   <li>{@link dev.ratisoffload.refkv.KvServer}: one peer hosting several groups on 127.0.0.1.</li>
 *   <li>{@link dev.ratisoffload.refkv.KvClient}: put, get, delete, count, snapshot, leadership.</li>
 *   <li>{@link dev.ratisoffload.refkv.KvStateMachine}: snapshot = one file
 *       {@code sm/snapshot.<term>_<index>} (+ {@code .md5}), Ratis's standard layout.</li>
 *   <li>{@link dev.ratisoffload.refkv.FileListKvStateMachine}: snapshot = a directory of shard
 *       files, {@code sm/snapshot-<term>_<index>/}, to exercise multi-file snapshots.</li>
 * </ul>
 */
package dev.ratisoffload.refkv;
