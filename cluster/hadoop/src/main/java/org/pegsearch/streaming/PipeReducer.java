package org.pegsearch.streaming;

import java.io.IOException;
import java.util.Iterator;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reducer;
import org.apache.hadoop.mapred.Reporter;

/** The reduce: each value of each key, in key order, is a line `key<TAB>value` of the command's input. */
public class PipeReducer extends PipeStage implements Reducer<Text, Text, Text, Text> {
    @Override
    protected String commandKey() {
        return Streaming.REDUCER;
    }

    @Override
    public void reduce(Text key, Iterator<Text> values, OutputCollector<Text, Text> output,
                       Reporter reporter) throws IOException {
        Pipe pipe = pipe(output, reporter);
        while (values.hasNext()) {
            pipe.write(key, values.next());
        }
    }
}
