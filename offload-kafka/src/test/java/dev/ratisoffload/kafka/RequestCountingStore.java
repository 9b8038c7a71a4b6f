package dev.ratisoffload.kafka;

import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.util.List;
import java.util.function.Supplier;

/** A store that counts the requests made of it and the objects its listings returned. */
public final class RequestCountingStore extends ForwardingObjectStore {

  private int requests;
  private int objectsListed;

  public RequestCountingStore(ObjectStore delegate) {
    super(delegate);
  }

  @Override
  protected <T> T call(String key, Supplier<T> request) {
    requests++;
    return request.get();
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
    List<ObjectInfo> listed = super.list(prefix, startAfter, maxKeys);
    objectsListed += listed.size();
    return listed;
  }

  public int requests() {
    return requests;
  }

  public int objectsListed() {
    return objectsListed;
  }

  public void reset() {
    requests = 0;
    objectsListed = 0;
  }
}
