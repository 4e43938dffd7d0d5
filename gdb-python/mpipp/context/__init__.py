"""The communication context: what each rank is doing inside MPI."""
