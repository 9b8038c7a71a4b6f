package dev.ratisoffload.refkv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class KvCommandTest {

  @Test
  void putRoundTripsKeyAndBinaryValue() {
    final byte[] value = {0, 1, (byte) 0xff, 42};
    final KvCommand decoded = KvCommand.decode(KvCommand.put("ключ/1", value).toMessage().getContent());
    assertEquals(KvCommand.Op.PUT, decoded.op());
    assertEquals("ключ/1", decoded.key());
    assertArrayEquals(value, decoded.value());
  }

  @Test
  void queriesAndDeletesRoundTrip() {
    assertEquals(KvCommand.Op.GET, KvCommand.decode(KvCommand.get("a").toMessage().getContent()).op());
    assertEquals("a", KvCommand.decode(KvCommand.delete("a").toMessage().getContent()).key());
    final KvCommand count = KvCommand.decode(KvCommand.count().toMessage().getContent());
    assertEquals(KvCommand.Op.COUNT, count.op());
    assertNull(count.key());
  }

  @Test
  void malformedBytesAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> KvCommand.decode(ByteString.EMPTY));
    assertThrows(IllegalArgumentException.class, () -> KvCommand.decode(ByteString.copyFrom(new byte[] {9})));
    final ByteString put = KvCommand.put("key", "value".getBytes(StandardCharsets.UTF_8)).toMessage().getContent();
    assertThrows(IllegalArgumentException.class, () -> KvCommand.decode(put.substring(0, put.size() - 1)));
    assertThrows(IllegalArgumentException.class, () -> KvCommand.decode(put.concat(ByteString.copyFrom(new byte[] {1}))));
  }

  @Test
  void repliesRoundTrip() {
    assertEquals(123456789012L, KvReply.parseCount(KvReply.count(123456789012L)));
    assertArrayEquals(new byte[] {7}, KvReply.parseValue(KvReply.value(new byte[] {7})).orElseThrow());
    assertEquals(0, KvReply.parseValue(KvReply.value(new byte[0])).orElseThrow().length);
    assertEquals(false, KvReply.parseValue(KvReply.value(null)).isPresent());
    assertEquals(true, KvReply.parseFlag(KvReply.flag(true)));
  }
}
