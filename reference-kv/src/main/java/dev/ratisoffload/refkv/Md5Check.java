package dev.ratisoffload.refkv;

import java.io.File;
import java.io.IOException;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Checks a snapshot file against the digest read from its {@code .md5} sidecar.
 *
 * <p>Not {@code MD5FileUtil.verifySavedMD5(file, info.getFileDigest())}, the pattern in Ratis's
 * examples: that method compares the sidecar with the digest passed in, and the digest in a
 * loaded SnapshotInfo was itself read from the sidecar, so it never looks at the file's bytes.
 */
final class Md5Check {
  private Md5Check() {
  }

  /** Does nothing when {@code stored} is null (no sidecar: the md5 is optional). */
  static void verify(File file, MD5Hash stored) throws IOException {
    if (stored == null) {
      return;
    }
    final MD5Hash computed = MD5FileUtil.computeMd5ForFile(file);
    if (!computed.equals(stored)) {
      throw new IOException("snapshot file " + file + " does not match its .md5 sidecar (stored "
          + stored + ", computed " + computed + "): the snapshot is corrupt; restore it from a backup");
    }
  }
}
