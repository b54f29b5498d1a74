package org.pegsearch.streaming;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reporter;

/**
 * One streaming command of a task: records go to its standard input as lines, its standard output
 * comes back as lines split at the first tab into key and value, as Hadoop Streaming does.
 *
 * A thread reads the command's output while the task writes its input, so neither pipe can fill and
 * stall the other. The command's standard error goes to the task's own log. A command that exits
 * non-zero fails the task, which YARN then tries again.
 */
final class Pipe {
    private final String command;
    private final Process process;
    private final OutputStream input;
    private final Thread reader;
    private volatile Throwable readerError;

    Pipe(JobConf conf, String command, OutputCollector<Text, Text> output, Reporter reporter)
            throws IOException {
        this.command = command;
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", command);
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        Map<String, String> environment = builder.environment();
        for (String pair : conf.getStrings(Streaming.CMDENV, new String[0])) {
            int equals = pair.indexOf('=');
            environment.put(pair.substring(0, equals), pair.substring(equals + 1));
        }
        process = builder.start();
        input = new BufferedOutputStream(process.getOutputStream(), 1 << 16);
        reader = new Thread(() -> collect(output, reporter), "streaming-output");
        reader.start();
    }

    /** One line of the command's input: the bytes given, then a newline. */
    void write(Text first, Text second) throws IOException {
        try {
            input.write(first.getBytes(), 0, first.getLength());
            if (second != null) {
                input.write('\t');
                input.write(second.getBytes(), 0, second.getLength());
            }
            input.write('\n');
        } catch (IOException exc) {
            throw new IOException("the streaming command stopped reading its input: " + command, exc);
        }
    }

    /** Ends the input, waits for the last output line and the command's exit. */
    void close() throws IOException {
        try {
            input.close();
        } catch (IOException ignored) {
            // the command has already exited: its status below says whether that was a failure
        }
        try {
            reader.join();
            int status = process.waitFor();
            if (readerError != null) {
                throw new IOException("reading the streaming command's output failed: " + command,
                                      readerError);
            }
            if (status != 0) {
                throw new IOException("the streaming command exited with status " + status + ": "
                                      + command);
            }
        } catch (InterruptedException exc) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + command, exc);
        }
    }

    private void collect(OutputCollector<Text, Text> output, Reporter reporter) {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8), 1 << 16)) {
            Text key = new Text();
            Text value = new Text();
            long count = 0;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                int tab = line.indexOf('\t');
                key.set(tab < 0 ? line : line.substring(0, tab));
                value.set(tab < 0 ? "" : line.substring(tab + 1));
                output.collect(key, value);
                if (++count % 10000 == 0) {
                    reporter.progress();
                }
            }
        } catch (Throwable exc) {
            readerError = exc;
            process.destroyForcibly();
        }
    }
}
