"""The chat page measured in a throttled browser (issue #52): scroll frames, first screen."""
