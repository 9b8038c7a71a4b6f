/**
 * Test support shared by the project's modules and demo: an in-process S3 server
 * ({@link dev.ratisoffload.testkit.EmbeddedS3}), a multi-peer, multi-group Ratis cluster of the
 * reference key-value store ({@link dev.ratisoffload.testkit.RatisCluster}), and
 * {@link dev.ratisoffload.testkit.Await} for waiting on conditions with a deadline.
 */
package dev.ratisoffload.testkit;
