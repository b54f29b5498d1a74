package org.pegsearch.streaming;

/** The combine: the reduce's way of feeding a command, with the combiner's command. */
public class PipeCombiner extends PipeReducer {
    @Override
    protected String commandKey() {
        return Streaming.COMBINER;
    }
}
