package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class ContentTest {

  @Test
  void aDeclaredSha256TravelsWithTheSameBytes() throws IOException {
    byte[] bytes = {1, 2, 3, 4, 5};
    byte[] digest = new byte[32];
    digest[0] = 42;
    Content declared = Content.ofRange(bytes, 1, 3).withSha256(digest);
    digest[0] = 0; // the caller's array may change afterwards
    assertEquals(3, declared.size());
    assertArrayEquals(new byte[] {2, 3, 4}, declared.toByteArray());
    try (InputStream part = declared.open(1, 2)) {
      assertArrayEquals(new byte[] {3, 4}, part.readAllBytes());
    }
    assertEquals(42, declared.sha256().orElseThrow()[0]);
    assertTrue(Content.of(bytes).sha256().isEmpty());
  }

  @Test
  void aDeclaredSha256HasThirtyTwoBytes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Content.of(new byte[1]).withSha256(new byte[31]));
    assertTrue(e.getMessage().contains("31"), e::getMessage);
  }
}
