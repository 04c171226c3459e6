"""What a build is asked to do, checked before anything runs.

nox's own interpreter imports these modules, so they use the standard library only;
torch is imported only inside the functions that ask it about CUDA.
"""
