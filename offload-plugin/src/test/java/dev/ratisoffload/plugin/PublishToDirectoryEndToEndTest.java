package dev.ratisoffload.plugin;

import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import java.nio.file.Path;
import org.apache.ratis.conf.RaftProperties;

class PublishToDirectoryEndToEndTest extends PublishEndToEndContract {

  private Path directory;

  @Override
  RaftProperties startStore(Path tmp) {
    directory = tmp.resolve("backups");
    RaftProperties p = new RaftProperties();
    OffloadConfigKeys.Store.setUri(p, directory.toUri().toString());
    return p;
  }

  @Override
  ObjectStore openStore() {
    return new DirectoryObjectStore(directory);
  }

  @Override
  void stopStore() {}
}
