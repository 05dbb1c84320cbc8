from chatapp.cli import main

main()
