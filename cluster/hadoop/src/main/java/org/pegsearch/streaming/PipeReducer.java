package org.pegsearch.streaming;

import java.io.IOException;
import java.util.Iterator;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reducer;
import org.apache.hadoop.mapred.Reporter;

/** The reduce: each value of each key, in key order, is a line `key<TAB>value` of the command's input. */
public class PipeReducer implements Reducer<Text, Text, Text, Text> {
    private JobConf conf;
    private Pipe pipe;

    @Override
    public void configure(JobConf job) {
        conf = job;
    }

    /** The job setting that holds this stage's command. */
    protected String commandKey() {
        return Streaming.REDUCER;
    }

    @Override
    public void reduce(Text key, Iterator<Text> values, OutputCollector<Text, Text> output,
                       Reporter reporter) throws IOException {
        if (pipe == null) {
            pipe = new Pipe(conf, conf.get(commandKey()), output, reporter);
        }
        while (values.hasNext()) {
            pipe.write(key, values.next());
        }
    }

    @Override
    public void close() throws IOException {
        if (pipe != null) {
            pipe.close();
            pipe = null;
        }
    }
}
