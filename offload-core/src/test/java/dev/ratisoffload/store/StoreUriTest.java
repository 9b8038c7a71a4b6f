package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A store URI never carries, nor shows, credentials. */
class StoreUriTest {

  @ParameterizedTest
  @ValueSource(strings = {"s3://AKIAHOSTILE:s3cret@backups/ratis", "s3://AKIAHOSTILE@backups/ratis",
      "file://AKIAHOSTILE:s3cret@host/var/backups", " s3://AKIAHOSTILE:s3cret@backups/ratis"})
  void aUriWithUserInfoIsRefusedWithoutShowingIt(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreUri.parse(text));
    assertFalse(e.getMessage().contains("s3cret") || e.getMessage().contains("AKIAHOSTILE"), e.getMessage());
    assertTrue(e.getMessage().contains("***@") && e.getMessage().contains("profile"), e.getMessage());
  }

  @Test
  void anAtSignAfterTheAuthorityIsNoUserInfo() {
    assertEquals("s3://backups/ratis", StoreUri.withoutUserInfo("s3://backups/ratis"));
    assertEquals("s3://backups/a@b", StoreUri.withoutUserInfo("s3://backups/a@b"));
    assertEquals("s3://***@backups/ratis", StoreUri.withoutUserInfo("s3://key:secret@backups/ratis"));
  }

  @Test
  void everyOtherMistakeIsShownWithoutControlCharacters() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StoreUri.parse("s3://Bad\u001b[2J/x"));
    assertFalse(e.getMessage().contains("\u001b"), e.getMessage());
  }
}
