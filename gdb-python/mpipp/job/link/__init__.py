"""What carries commands and answers between the console and the ranks' gdbs."""
