package dev.ratisoffload.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The runbook's alerting rules are valid and behave as their unit tests say, checked by promtool. */
class AlertRulesTest {

  private static Path root;
  private static String promtool;

  @BeforeAll
  static void installPromtool() throws Exception {
    root = ProjectFiles.root();
    ProjectFiles.Result installed = ProjectFiles.run(root, 300, List.of("bash", "scripts/install-promtool"));
    assertEquals(0, installed.exitCode(), installed.output());
    String[] lines = installed.output().strip().split("\n");
    promtool = lines[lines.length - 1];
  }

  @Test
  void rulesAreValid() throws Exception {
    ProjectFiles.Result check = ProjectFiles.run(root, 60, List.of(promtool, "check", "rules", "runbook/alerts.yml"));
    assertEquals(0, check.exitCode(), check.output());
    assertTrue(check.output().contains("SUCCESS: 8 rules found"), check.output());
  }

  @Test
  void ruleUnitTestsPass() throws Exception {
    ProjectFiles.Result test = ProjectFiles.run(root.resolve("runbook"), 60,
        List.of(promtool, "test", "rules", "alerts-test.yml"));
    assertEquals(0, test.exitCode(), test.output());
  }
}
