package org.pegsearch.streaming;

import java.io.IOException;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reporter;

/**
 * What the map, combine and reduce share: the job's settings, and the command's pipe, started with
 * the stage's first record (the collector to write to comes with it) and closed with the stage.
 */
abstract class PipeStage {
    private JobConf conf;
    private Pipe pipe;

    /** The job setting that holds this stage's command. */
    protected abstract String commandKey();

    public void configure(JobConf job) {
        conf = job;
    }

    protected Pipe pipe(OutputCollector<Text, Text> output, Reporter reporter) throws IOException {
        if (pipe == null) {
            pipe = new Pipe(conf, conf.get(commandKey()), output, reporter);
        }
        return pipe;
    }

    public void close() throws IOException {
        if (pipe != null) {
            pipe.close();
            pipe = null;
        }
    }
}
