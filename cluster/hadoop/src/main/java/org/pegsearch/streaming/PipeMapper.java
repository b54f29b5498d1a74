package org.pegsearch.streaming;

import java.io.IOException;

import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Mapper;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reporter;

/** The map: each input line (its text, not its offset) is a line of the mapper command's input. */
public class PipeMapper implements Mapper<LongWritable, Text, Text, Text> {
    private JobConf conf;
    private Pipe pipe;

    @Override
    public void configure(JobConf job) {
        conf = job;
    }

    @Override
    public void map(LongWritable offset, Text line, OutputCollector<Text, Text> output, Reporter reporter)
            throws IOException {
        if (pipe == null) {
            pipe = new Pipe(conf, conf.get(Streaming.MAPPER), output, reporter);
        }
        pipe.write(line, null);
    }

    @Override
    public void close() throws IOException {
        if (pipe != null) {
            pipe.close();
        }
    }
}
