package dev.ratisoffload.bench;

/**
 * One line of the table.
 *
 * @param workload what was measured
 * @param ours our figure, with its unit
 * @param baseline the baseline's figure, with its unit
 * @param ratio ours against the baseline (NaN when there is none)
 * @param target the target, in words
 * @param met whether the target is met; null when it cannot be said (not run, or only reported)
 */
record Row(String workload, String ours, String baseline, double ratio, String target, Boolean met) {

  static Row notRun(String workload, String target, String why) {
    return new Row(workload, why, "-", Double.NaN, target, null);
  }

  String metText() {
    return met == null ? "-" : met ? "yes" : "NO";
  }

  String ratioText() {
    return Double.isNaN(ratio) ? "-" : String.format("%.3f", ratio);
  }
}
