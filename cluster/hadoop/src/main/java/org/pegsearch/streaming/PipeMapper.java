package org.pegsearch.streaming;

import java.io.IOException;

import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.Mapper;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reporter;

/** The map: each input line (its text, not its offset) is a line of the mapper command's input. */
public class PipeMapper extends PipeStage implements Mapper<LongWritable, Text, Text, Text> {
    @Override
    protected String commandKey() {
        return Streaming.MAPPER;
    }

    @Override
    public void map(LongWritable offset, Text line, OutputCollector<Text, Text> output, Reporter reporter)
            throws IOException {
        pipe(output, reporter).write(line, null);
    }
}
