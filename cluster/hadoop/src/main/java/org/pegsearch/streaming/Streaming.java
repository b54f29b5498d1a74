package org.pegsearch.streaming;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.FileInputFormat;
import org.apache.hadoop.mapred.FileOutputFormat;
import org.apache.hadoop.mapred.JobClient;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RunningJob;
import org.apache.hadoop.mapred.TextInputFormat;
import org.apache.hadoop.mapred.TextOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * A Hadoop Streaming job for the options mrjob's hadoop runner gives: `-input`, `-output`,
 * `-mapper`, `-combiner`, `-reducer` and `-cmdenv`, after Hadoop's generic options (`-D`, `-files`,
 * `-archives`, `-libjars`, read by ToolRunner). Text lines in, text lines out, a line's key ends at
 * its first tab.
 *
 * It exists because Maven Central serves Hadoop's client and mini cluster jars here but not the
 * hadoop-streaming jar; on a real cluster mrjob finds and uses that cluster's own streaming jar.
 * An option mrjob can give that this job does not carry out (`-inputformat`, `-outputformat`,
 * `-partitioner`) is refused rather than ignored.
 */
public class Streaming extends Configured implements Tool {
    static final String MAPPER = "pegsearch.streaming.mapper";
    static final String COMBINER = "pegsearch.streaming.combiner";
    static final String REDUCER = "pegsearch.streaming.reducer";
    static final String CMDENV = "pegsearch.streaming.cmdenv";

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new Streaming(), args));
    }

    @Override
    public int run(String[] args) throws Exception {
        JobConf job = new JobConf(getConf(), Streaming.class);
        List<String> inputs = new ArrayList<>();
        List<String> cmdenv = new ArrayList<>();
        String output = null;
        for (int index = 0; index < args.length; index += 2) {
            String option = args[index];
            if (index + 1 >= args.length) {
                return refuse(option + " needs a value");
            }
            String value = args[index + 1];
            switch (option) {
                case "-input" -> inputs.add(value);
                case "-output" -> output = value;
                case "-mapper" -> job.set(MAPPER, value);
                case "-combiner" -> job.set(COMBINER, value);
                case "-reducer" -> job.set(REDUCER, value);
                case "-cmdenv" -> {
                    if (!value.contains("=")) {
                        return refuse("-cmdenv " + value + ": give NAME=VALUE");
                    }
                    cmdenv.add(value);
                }
                default -> {
                    return refuse("option " + option + " is not supported by this streaming job");
                }
            }
        }
        if (inputs.isEmpty() || output == null || job.get(MAPPER) == null) {
            return refuse("give -input, -output and -mapper");
        }
        job.setJobName("streaming: " + job.get(MAPPER));
        job.setStrings(CMDENV, cmdenv.toArray(new String[0]));
        job.setInputFormat(TextInputFormat.class);
        job.setOutputFormat(TextOutputFormat.class);
        job.setMapperClass(PipeMapper.class);
        job.setMapOutputKeyClass(Text.class);
        job.setMapOutputValueClass(Text.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(Text.class);
        if (job.get(COMBINER) != null) {
            job.setCombinerClass(PipeCombiner.class);
        }
        if (job.get(REDUCER) != null) {
            job.setReducerClass(PipeReducer.class);
        } else {
            job.setNumReduceTasks(0);
        }
        for (String input : inputs) {
            FileInputFormat.addInputPaths(job, input);
        }
        FileOutputFormat.setOutputPath(job, new Path(output));
        RunningJob running = JobClient.runJob(job);  // prints progress; throws when the job fails
        return running.isSuccessful() ? 0 : 1;
    }

    private static int refuse(String message) {
        System.err.println("hadoop-streaming-pegsearch: " + message);
        return 2;
    }
}
